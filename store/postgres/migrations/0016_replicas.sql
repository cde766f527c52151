-- The serving processes that keep what they read under per-user
-- generations (store/postgres/generations.go): each renews its lease from
-- its LISTEN connection, and a writer waits for every live one to
-- acknowledge its change before answering, or for its lease to pass.

create table replicas (
    id text primary key,
    lease_until timestamptz not null
);
