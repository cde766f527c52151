-- An operator can disable an account (sendlater users disable): when, and
-- the messages that were active then, held paused until it is enabled.
alter table users add column disabled_at bigint;
alter table users add column held_messages text[];

-- What operators do (sendlater audit list): never updated nor deleted.
create table audit_log (
	id     text collate "C" primary key,
	at     bigint not null,
	actor  text not null,
	action text not null,
	target text not null,
	detail text not null
);
create index audit_log_at on audit_log (at, id);
