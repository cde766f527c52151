-- Issue 33: the recipients' downloads of a delivered message's files from
-- their links: one row a file and recipient (the index in the message's
-- list; no address here), the count, the first and the last. The first
-- download is also an event on the author's timeline; the later ones are
-- only counted here. The rows go with their file.
create table attachment_downloads (
	attachment_id text collate "C" not null,
	recipient     integer not null,
	count         integer not null,
	first_at      timestamptz not null,
	last_at       timestamptz not null,
	constraint attachment_downloads_pkey primary key (attachment_id, recipient),
	constraint attachment_downloads_attachment_id_fkey foreign key (attachment_id) references attachments (id) on delete cascade
);
