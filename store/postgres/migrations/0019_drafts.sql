-- The authors' drafts (core.DraftStore): one per author and message, or
-- 'new' for the form of a message not yet created; the contents sealed
-- (seal.SealDraft). They go with their user and with their message.
create table drafts (
	owner      text collate "C" not null,
	key        text collate "C" not null,
	message_id text collate "C", -- key, unless key is 'new'
	contents   bytea not null,
	updated_at timestamptz not null,
	constraint drafts_pkey primary key (owner, key),
	constraint drafts_owner_fkey foreign key (owner) references users (id) on delete cascade,
	constraint drafts_message_id_fkey foreign key (message_id) references messages (id) on delete cascade
);
create index drafts_message_id on drafts (message_id) where message_id is not null;
