-- The second reminder address's consent (core.User.ReminderAddressAskedAt,
-- ReminderAddressConfirmedAt): when it was asked to confirm, and when it
-- confirmed. Unix nanoseconds, null when never. An address set before this
-- migration has neither: it is unconfirmed, and asked at its next reminder
-- (docs/delivery.md).
alter table users add column reminder_address_asked_at bigint,
	add column reminder_address_confirmed_at bigint;
