-- A placeholder for the migration 0027 reserved for another branch
-- (item-bounce-marks): migrations are numbered without gaps, so 0028 needs
-- a 0027. At the merge the other branch's 0027 takes this file's place and
-- this file goes; 0028 assumes nothing of 0027.
select 1;
