-- Issue 33: the files of a message. A row is one file and its upload: the
-- name sealed (bound to the id), the sniffed type, the declared size (what
-- the plan's limits reserve), and the token of every part stored so far,
-- in order (the blob of part i is att/ID/iiiii.TOKEN in the BlobStore).
-- The rows go with their message and their owner.
create table attachments (
	id            text collate "C" not null,
	message_id    text collate "C" not null,
	owner         text collate "C" not null,
	name          bytea not null,
	type          text not null default '',
	size          bigint not null,
	executable    boolean not null default false,
	client_sealed boolean not null default false,
	part_size     bigint not null,
	parts         text[] not null default '{}',
	state         text not null,
	created_at    timestamptz not null,
	completed_at  timestamptz,
	constraint attachments_pkey primary key (id),
	constraint attachments_message_id_fkey foreign key (message_id) references messages (id) on delete cascade,
	constraint attachments_owner_fkey foreign key (owner) references users (id) on delete cascade
);
create index attachments_message_id on attachments (message_id, created_at, id);
create index attachments_owner on attachments (owner);
