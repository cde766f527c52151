-- Issue 31: the suppression list. An address that complained (marked an
-- email as spam) gets nothing more from this service: kept under its keyed
-- hash, as refusals are, with the address and the reason sealed (bound to
-- the hash) so that an operator can list them. A recipient's bounce marks
-- live in the sealed recipient list of its message (messages.recipients).
create table suppressions (
	hash          bytea not null,
	suppressed_at bigint,
	address       bytea not null,
	reason        bytea not null,
	constraint suppressions_pkey primary key (hash)
);
create index suppressions_at on suppressions (suppressed_at);
