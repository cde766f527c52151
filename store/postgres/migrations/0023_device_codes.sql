-- The device flow's requests (RFC 8628's pattern, `sendlater login
-- --device`): shared by every replica, ten minutes each. Neither code is
-- kept: the device code as its SHA-256, the user code as a keyed hash.
create table device_codes (
	id              text collate "C" primary key,
	device_hash     text collate "C" not null,
	user_code_hash  text collate "C" not null,
	client_name     text not null,
	user_agent      text not null default '',
	network         text not null default '',
	created_at      bigint not null,
	expires_at      bigint not null,
	poll_interval   bigint not null,
	last_polled_at  bigint,
	status          text not null,
	user_id         text collate "C",
	session_id      text collate "C" not null default '',
	decided_at      bigint,
	constraint device_codes_device_key unique (device_hash),
	constraint device_codes_user_code_key unique (user_code_hash),
	constraint device_codes_user_id_fkey foreign key (user_id) references users (id) on delete cascade
);
create index device_codes_expiry on device_codes (expires_at);
