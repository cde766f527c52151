-- Reserved: branch item-bounces numbers its migration 0024 as asked, after
-- another branch's 0023. Delete this file when that branch's 0023 is merged.
select 1;
