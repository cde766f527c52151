-- Holds number 25 for the blobs kept inside the store, built at the same
-- time in another change: at merge its migration takes this number and
-- this file goes.
select 1;
