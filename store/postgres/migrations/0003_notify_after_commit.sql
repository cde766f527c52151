-- Changes to messages are notified by the writer after its transaction
-- committed (store/postgres/notify.go), not by a trigger inside it: a
-- NOTIFY holds PostgreSQL's notification lock until its transaction's
-- commit is flushed, which made every writer's commit wait for the last.

drop trigger messages_changed on messages;
drop function sendlater_messages_changed();
