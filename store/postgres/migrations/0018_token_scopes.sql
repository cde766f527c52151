-- What each personal access token may do (core/scopes.go): messages:read,
-- messages:write, account. NULL for a token made before tokens had scopes,
-- which keeps every scope so that no script or TUI using one breaks.

alter table access_tokens add column scopes text[];
