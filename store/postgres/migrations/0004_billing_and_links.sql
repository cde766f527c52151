-- Payments (core.BillingStore): a user found by their Stripe customer, which
-- is one user's; the ids of the Stripe events applied, kept for
-- core.BillingEventRetention. Social sign-in (core.ProviderLinkStore): the
-- provider accounts linked to users, each to one user, at most one per
-- provider and user.

create unique index users_stripe_customer_key on users (stripe_customer_id) where stripe_customer_id <> '';

create table billing_events (
	id          text collate "C" not null,
	recorded_at bigint not null,
	constraint billing_events_pkey primary key (id)
);
create index billing_events_recorded on billing_events (recorded_at);

create table provider_links (
	provider          text collate "C" not null,
	subject           text collate "C" not null,
	user_id           text collate "C" not null,
	email             text not null,
	pending_code_hash text not null,
	created_at        bigint,
	constraint provider_links_pkey primary key (provider, subject),
	constraint provider_links_user_provider_key unique (user_id, provider),
	constraint provider_links_user_id_fkey foreign key (user_id) references users (id) on delete cascade
);
