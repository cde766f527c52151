-- Issue 31: a recipient's bounce mark (its last hard bounce and the soft
-- bounces counted) is a small row of its own beside its message, under the
-- message and the address's keyed hash, instead of a part of the message's
-- sealed recipient list: a bounce is one small write that never rewrites
-- the message row. The address, status and reason are sealed (bound to the
-- message and the hash). The marks go with their message (and so with
-- their user).
create table bounce_marks (
	message_id   text collate "C" not null
		constraint bounce_marks_message_id_fkey references messages (id) on delete cascade,
	hash         bytea not null,
	bounced_at   bigint,
	email        integer not null default 0,
	soft_bounces integer not null default 0,
	sealed       bytea not null,
	constraint bounce_marks_pkey primary key (message_id, hash)
);

-- The marks already in sealed recipient lists move here when a binary
-- holding the key first opens the store (moveBounceMarks): this row says
-- that is still to do.
create table bounce_marks_pending (
	pending boolean not null,
	constraint bounce_marks_pending_pkey primary key (pending)
);
insert into bounce_marks_pending values (true);
