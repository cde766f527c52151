-- The second factor of an account (core/identity_totp.go): the authenticator
-- app's secret, sealed like the name (NULL: none), when a code confirmed it
-- (NULL: pending or none), the last time step a code was accepted at (no
-- code is used twice), and the hashes of the unused recovery codes.

alter table users
	add column totp_secret bytea,
	add column totp_enabled_at bigint,
	add column totp_last_step bigint not null default 0,
	add column recovery_codes text[];
