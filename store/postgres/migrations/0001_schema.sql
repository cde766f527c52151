-- The schema of a Sendlater store, in the schema named first in search_path.
--
-- Times are unix nanoseconds (bigint), as in the bbolt store, so a copy
-- between the backends is exact and a lease read back equals the one
-- written; NULL is the zero time ("never"). Read one with
-- to_timestamp(due_at / 1e9). Ids and hashes compare as bytes (collation
-- "C"), in the order of the bbolt store's keys. bytea columns named after a
-- message's contents hold store/seal envelopes: the database never sees
-- them in clear.

create table meta (
	key   text collate "C" not null,
	value bytea not null,
	constraint meta_pkey primary key (key)
);

create table users (
	id                         text collate "C" not null,
	email                      text not null,
	email_key                  text collate "C", -- core.EmailKey(email), NULL when empty
	name                       text not null,
	picture                    text not null,
	timezone                   text not null,
	password_hash              text not null,
	providers                  text[],
	email_verified             boolean not null,
	stripe_customer_id         text not null,
	stripe_price_id            text not null,
	stripe_subscription_status text not null,
	created_at                 bigint,
	updated_at                 bigint,
	constraint users_pkey primary key (id),
	constraint users_email_key_key unique (email_key)
);

create table messages (
	id               text collate "C" not null,
	owner            text collate "C" not null,
	send_interval    text not null,
	send_date        bigint,
	is_active        boolean not null,
	postpone_code    text not null,
	featured         boolean not null,
	webhook_url      text not null,
	created_at       bigint,
	updated_at       bigint,
	status           text not null,
	reminders_sent   integer not null,
	reminder_sent_at bigint,
	delivered_at     bigint,
	attempts         integer not null,
	next_attempt_at  bigint,
	lease_until      bigint,
	email_message_id text not null,
	due_at           bigint, -- core.Message.DueAt: the delivery index
	remind_at        bigint, -- core.Message.RemindAt: the reminder index
	title            bytea not null, -- sealed
	name             bytea not null, -- sealed
	recipient        bytea not null, -- sealed
	body             bytea not null, -- sealed
	last_error       bytea,          -- sealed, NULL when empty
	constraint messages_pkey primary key (id),
	constraint messages_owner_fkey foreign key (owner) references users (id) on delete cascade
);
-- An author's list, newest first; all messages, newest first (admin).
create index messages_owner_created on messages (owner, created_at desc, id);
create index messages_created on messages (created_at desc, id);
-- A delivery pass seeks to what is due: its cost is what is due, not what is stored.
create index messages_due on messages (due_at, id) where due_at is not null;
create index messages_remind on messages (remind_at, id) where remind_at is not null;

-- Every committed change to a message tells the listeners of its owner's
-- messages, in whichever process they are (store/postgres watch.go); the
-- channel is this schema's, so two installations in one database keep
-- their streams apart.
create function sendlater_messages_changed() returns trigger language plpgsql as $$
declare
	channel text := 'sendlater_' || md5(tg_table_schema);
begin
	if tg_op in ('UPDATE', 'DELETE') then
		perform pg_notify(channel, old.owner);
	end if;
	if tg_op in ('INSERT', 'UPDATE') then
		perform pg_notify(channel, new.owner);
	end if;
	return null;
end
$$;
create trigger messages_changed after insert or update or delete on messages
	for each row execute function sendlater_messages_changed();

create table sessions (
	id             text collate "C" not null,
	user_id        text collate "C" not null,
	refresh_hash   text collate "C" not null,
	rotated_hashes text[],
	auth_time      bigint,
	created_at     bigint,
	last_used_at   bigint,
	expires_at     bigint,
	user_agent     text not null,
	constraint sessions_pkey primary key (id),
	constraint sessions_user_id_fkey foreign key (user_id) references users (id) on delete cascade
);
create index sessions_refresh_hash on sessions (refresh_hash);
create index sessions_rotated_hashes on sessions using gin (rotated_hashes);
create index sessions_user on sessions (user_id);
create index sessions_expiry on sessions (expires_at, id) where expires_at is not null;

create table access_tokens (
	id           text collate "C" not null,
	user_id      text collate "C" not null,
	name         text not null,
	hash         text collate "C" not null,
	created_at   bigint,
	last_used_at bigint,
	constraint access_tokens_pkey primary key (id),
	constraint access_tokens_hash_key unique (hash),
	constraint access_tokens_user_id_fkey foreign key (user_id) references users (id) on delete cascade
);
create index access_tokens_user on access_tokens (user_id);

create table action_codes (
	hash       text collate "C" not null,
	mode       text not null,
	user_id    text collate "C" not null,
	email      text not null,
	old_email  text not null,
	created_at bigint,
	expires_at bigint,
	used_at    bigint,
	constraint action_codes_pkey primary key (hash)
);
create index action_codes_expiry on action_codes (expires_at) where expires_at is not null;

create table contacts (
	id         text collate "C" not null,
	name       text not null,
	email      text not null,
	message    text not null,
	created_at bigint,
	constraint contacts_pkey primary key (id)
);
create index contacts_created on contacts (created_at, id);

-- Addresses that refused every further message, by keyed hash only.
create table refusals (
	hash       bytea not null,
	refused_at bigint,
	constraint refusals_pkey primary key (hash)
);

create table webhook_calls (
	message_id      text collate "C" not null,
	kind            text not null,
	owner           text collate "C" not null,
	url             text not null,
	delivered_at    bigint,
	attempts        integer not null,
	next_attempt_at bigint, -- also the lease while a pass sends it
	recipient       bytea not null, -- sealed
	last_error      bytea,          -- sealed, NULL when empty
	constraint webhook_calls_pkey primary key (message_id)
);
create index webhook_calls_due on webhook_calls (next_attempt_at, message_id) where next_attempt_at is not null;

create table webhook_secrets (
	user_id text collate "C" not null,
	secret  bytea not null, -- sealed
	constraint webhook_secrets_pkey primary key (user_id),
	constraint webhook_secrets_user_id_fkey foreign key (user_id) references users (id) on delete cascade
);
