-- When a session's current refresh token was issued by a rotation: a
-- token presented again within the grace window after it (a retried
-- refresh) gets the same new pair instead of ending the session.
alter table sessions add column refreshed_at bigint;
