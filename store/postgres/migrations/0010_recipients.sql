-- Several recipients: every recipient of a message with the delivery of
-- their own email (Message-ID, attempts, outcome), sealed as one list bound
-- to the message's id. NULL for a message written before: its one recipient
-- is name and recipient with the message's own delivery state.
alter table messages add column recipients bytea;
