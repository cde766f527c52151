-- The reminder ladder (core.User.ReminderLadder: a bit per extra step, 0:
-- the default only) and the second reminder address, sealed (null: none).
alter table users add column reminder_ladder smallint not null default 0,
	add column reminder_address bytea;
