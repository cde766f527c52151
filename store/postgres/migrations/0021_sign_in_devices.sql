-- Where you are signed in: the network a session signed in from (a /24 or
-- a /48, never the whole address), and each account's book of the devices
-- and networks it signed in from (keyed hashes only) with the owner's
-- choice of the email about a sign-in from a new one.
alter table sessions add column network text not null default '';

create table device_books (
	user_id    text collate "C" primary key,
	alerts_off boolean not null default false,
	devices    jsonb not null default '[]',
	constraint device_books_user_id_fkey foreign key (user_id) references users (id) on delete cascade
);
