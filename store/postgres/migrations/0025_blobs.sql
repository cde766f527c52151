-- Issue 33: attachments' sealed bytes inside the store, in chunked rows.
-- A put makes its blobs row at once (size null: invisible), writes its
-- chunks in batches, each batch its own short transaction that also
-- touches the row, and sets size last: only rows with a size are ever
-- read. A put a crash cut short keeps size null and is removed once it was
-- not touched for an hour (on Open, or by the sweep), its chunks with it.
create table blobs (
	id         bigint generated always as identity,
	key        text collate "C" not null, -- byte order, as bbolt and S3 list
	size       bigint,                    -- null while the put runs
	touched_at bigint not null,           -- unix seconds of the put's last batch
	constraint blobs_pkey primary key (id)
);
create unique index blobs_key on blobs (key) where size is not null;
create index blobs_pending on blobs (touched_at) where size is null;

create table blob_chunks (
	blob bigint not null,
	idx  integer not null,
	data bytea not null, -- sealed already: never compressed
	constraint blob_chunks_pkey primary key (blob, idx),
	constraint blob_chunks_blob_fkey foreign key (blob) references blobs (id) on delete cascade
);
alter table blob_chunks alter column data set storage external;
