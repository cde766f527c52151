-- Each process's delivery health (core.ProcessHealth): its last pass, so
-- that /healthz on every replica and `sendlater status` see the cluster's.
-- A handful of rows, one per process, rewritten after every pass.

create table process_health (
	process        text collate "C" not null,
	scheduler      boolean not null,
	started_at     bigint,
	seen_at        bigint,
	last_ok        bigint,
	pass_started   bigint,
	pass_finished  bigint,
	delivered      integer not null,
	reminded       integer not null,
	retried        integer not null,
	failed         integer not null,
	skipped        integer not null,
	webhooks       integer not null,
	errors         text[],
	error          text not null,
	constraint process_health_pkey primary key (process)
);
