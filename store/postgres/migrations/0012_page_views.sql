-- The first-party page-view counter (core.PageViewStore): one row per UTC
-- day and public page, nothing about the visitor.
create table page_views (
	day   text collate "C" not null,
	path  text collate "C" not null,
	views bigint not null,
	constraint page_views_pkey primary key (day, path)
);
