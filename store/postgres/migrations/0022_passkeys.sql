-- Users' passkeys (WebAuthn credentials): public keys only, deleted with
-- their user; a credential id is registered once across every user.
create table passkeys (
	id               text collate "C" primary key,
	user_id          text collate "C" not null,
	name             text not null,
	credential_id    bytea not null,
	public_key       bytea not null,
	attestation_type text not null default '',
	aaguid           bytea,
	transports       text[],
	sign_count       bigint not null default 0,
	backup_eligible  boolean not null default false,
	backup_state     boolean not null default false,
	created_at       bigint,
	last_used_at     bigint,
	constraint passkeys_credential_key unique (credential_id),
	constraint passkeys_user_id_fkey foreign key (user_id) references users (id) on delete cascade
);
create index passkeys_user on passkeys (user_id, created_at);
