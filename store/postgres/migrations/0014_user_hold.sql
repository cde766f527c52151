-- The author's hold (core.User.HoldSince, HoldUntil): "pause all my
-- messages until". Unix nanoseconds, null when never held.
alter table users add column hold_since bigint, add column hold_until bigint;
