-- A message's delivery timeline (core.MessageEvent): append-only entries
-- written in the transaction of the change they tell of, deleted with
-- their message. recipient and detail are sealed, bound to the message's id.
create table message_events (
	seq             bigserial primary key,
	message_id      text collate "C" not null references messages (id) on delete cascade,
	at              bigint not null,
	kind            text not null,
	actor           text not null default '',
	recipient       bytea,
	detail          bytea,
	next_attempt_at bigint
);
create index message_events_by_message on message_events (message_id, seq);
