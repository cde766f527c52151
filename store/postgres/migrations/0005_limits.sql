-- The events the limits count (core.LimitStore): failed sign-ins, emails
-- sent, open message streams, under keyed hashes of what they count (no
-- address in clear). Every replica counts in this one table, so a limit
-- holds across them. An event no longer counts once it expired; the
-- sweeper deletes those.
create table limit_events (
	key        text collate "C" not null,
	id         text collate "C" not null,
	at         bigint not null,
	expires_at bigint not null,
	constraint limit_events_pkey primary key (key, id)
);
create index limit_events_expiry on limit_events (expires_at);
