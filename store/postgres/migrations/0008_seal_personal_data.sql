-- Account names and contact submissions are sealed like message contents
-- (store/seal). The columns become bytea; rows written before stay readable
-- in clear (sealed false) until the store, opened with its key, seals them
-- (sealClearRows in personal.go), which it does at every open until none is
-- left.
alter table users alter column name type bytea using convert_to(name, 'UTF8');
alter table users add column name_sealed boolean not null default false;
create index users_name_clear on users (id) where not name_sealed;
alter table contacts alter column name type bytea using convert_to(name, 'UTF8');
alter table contacts alter column email type bytea using convert_to(email, 'UTF8');
alter table contacts alter column message type bytea using convert_to(message, 'UTF8');
alter table contacts add column sealed boolean not null default false;
create index contacts_clear on contacts (id) where not sealed;
