-- The webhook calls become the outbox (core.OutboxItem): webhook calls,
-- failure notices and identity emails, keyed by the item's id (a webhook
-- call's or failure notice's is its message's id, as before), with the
-- composed email sealed (it may carry a secret link), and the items that
-- failed for good kept (failed_at set, next_attempt_at NULL) for the
-- operator.
alter table webhook_calls rename to outbox;
alter table outbox rename column message_id to id;
alter table outbox rename constraint webhook_calls_pkey to outbox_pkey;
alter index webhook_calls_due rename to outbox_due;
alter table outbox add column message_id text collate "C" not null default '';
update outbox set message_id = id;
alter table outbox alter column message_id drop default;
alter table outbox add column email bytea;    -- sealed, NULL when none
alter table outbox add column failed_at bigint;
create index outbox_failed on outbox (failed_at, id) where failed_at is not null;
