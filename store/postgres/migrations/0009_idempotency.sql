-- The Idempotency-Key (a hash of it) a message was created with: a retried
-- POST /api/messages with the same key finds the message instead of making
-- another. Unique per owner.
alter table messages add column idempotency_key text collate "C" not null default '';
create unique index messages_idempotency on messages (owner, idempotency_key) where idempotency_key <> '';
