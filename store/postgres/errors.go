package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

	"github.com/sendlater/sendlater/core"
)

// Constraint violations that are the caller's mistake, by constraint name
// (migrations name every one).
var constraintErrors = map[string]func() error{
	"users_pkey":                              core.ErrUserExists,
	"users_email_key_key":                     core.ErrEmailInUse,
	"messages_pkey":                           core.ErrMessageExists,
	"messages_owner_fkey":                     core.ErrUserNotFound,
	"messages_idempotency":                    core.ErrIdempotencyKeyUsed,
	"sessions_pkey":                           core.ErrSessionExists,
	"sessions_user_id_fkey":                   core.ErrUserNotFound,
	"access_tokens_pkey":                      core.ErrTokenExists,
	"access_tokens_hash_key":                  core.ErrTokenHashTaken,
	"access_tokens_user_id_fkey":              core.ErrUserNotFound,
	"action_codes_pkey":                       core.ErrActionCodeExists,
	"contacts_pkey":                           func() error { return core.Errorf(core.EConflict, "A contact submission with this id already exists.") },
	"webhook_secrets_user_id_fkey":            core.ErrUserNotFound,
	"users_stripe_customer_key":               core.ErrCustomerTaken,
	"provider_links_user_id_fkey":             core.ErrUserNotFound,
	"drafts_owner_fkey":                       core.ErrUserNotFound,
	"attachment_downloads_attachment_id_fkey": core.ErrAttachmentNotFound,
	"drafts_message_id_fkey":                  core.ErrMessageNotFound,
	"bounce_marks_message_id_fkey":            core.ErrMessageNotFound,
	"device_books_user_id_fkey":               core.ErrUserNotFound,
	"passkeys_user_id_fkey":                   core.ErrUserNotFound,
	"passkeys_pkey":                           core.ErrPasskeyExists,
	"passkeys_credential_key":                 core.ErrPasskeyExists,
	"device_codes_pkey":                       errDeviceCodeExists,
	"device_codes_device_key":                 errDeviceCodeExists,
	"device_codes_user_code_key":              errDeviceCodeExists,
	"device_codes_user_id_fkey":               core.ErrUserNotFound,
	"blobs_key":                               core.ErrBlobExists,
}

// wrapErr turns driver errors into core codes (DESIGN rule 3): a violated
// constraint is the conflict or not-found its caller expects, a lost or
// refused connection is EUnavailable with a sentence a user may read (the
// driver's detail stays in the error's text, for the log). Application and
// context errors pass through; anything else stays internal.
func wrapErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := core.AsError(err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if e, ok := constraintErrors[pgErr.ConstraintName]; ok && (pgErr.Code == "23505" || pgErr.Code == "23503") {
			return e()
		}
		switch {
		case pgErr.Code == "40001" || pgErr.Code == "40P01": // serialization failure, deadlock
			return unavailable(err, "The database was busy with a conflicting change. Please try again.")
		case pgErr.Code == "25006": // read-only transaction: a standby
			return unavailable(err, "The database is read-only at the moment. Please try again shortly.")
		case pgErr.Code[:2] == "08", pgErr.Code[:2] == "53", pgErr.Code[:3] == "57P":
			// connection exception, insufficient resources, operator intervention
			return unavailable(err, errDatabaseDown)
		}
		return fmt.Errorf("postgres: %w", err)
	}
	if errors.Is(err, puddle.ErrClosedPool) {
		return unavailable(err, "The store is closed.")
	}
	var netErr net.Error
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) || errors.As(err, &netErr) || pgconn.Timeout(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err) {
		return unavailable(err, errDatabaseDown)
	}
	return fmt.Errorf("postgres: %w", err)
}

const errDatabaseDown = "The database cannot be reached at the moment. Please try again shortly."

// wrapCommitErr is wrapErr for the round trip that carried a COMMIT (or a
// statement that commits by itself): when the connection failed after it
// left, the server may have committed and only its answer was lost, so
// the error is EOutcomeUnknown, never "unavailable, nothing changed". The
// change is known not to have been made only when the server refused a
// statement (the transaction rolled back), the check of an application
// error stopped it first, or no connection could be made. A client that
// cancelled gets its context's error: no one reads the reply.
func wrapCommitErr(err error) error {
	if err == nil {
		return nil
	}
	// Not pgconn.SafeToRetry: a reply cut short reaches the caller as
	// "conn closed", which it deems safe (the reader closed the connection
	// on the lost reply, then found it closed).
	var connectErr *pgconn.ConnectError
	if _, ok := core.AsError(err); ok || errors.As(err, &connectErr) || errors.Is(err, context.Canceled) {
		return wrapErr(err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && !connectionLost(pgErr) {
		return wrapErr(err)
	}
	return &storeError{public: &core.Error{Code: core.EOutcomeUnknown, Message: errOutcomeUnknown,
		RetryAfter: outcomeRetryAfter}, cause: err}
}

// connectionLost is whether the server's error ends the connection (a
// connection exception, an operator's shutdown, a fatal error): it may
// come after the COMMIT, not instead of it.
func connectionLost(e *pgconn.PgError) bool {
	return e.Code[:2] == "08" || e.Code[:3] == "57P" || e.Severity == "FATAL" || e.Severity == "PANIC"
}

// errOutcomeUnknown is the sentence of EOutcomeUnknown; core words it for
// the write it was (a message made with an Idempotency-Key says to retry
// with it).
const errOutcomeUnknown = "We could not confirm that this change was saved: the connection to the database was lost " +
	"while it was being saved. Reload to check before you try again."

// outcomeRetryAfter is the Retry-After of EOutcomeUnknown: by then the
// server has finished the transaction either way.
const outcomeRetryAfter = 2 * time.Second

// storeError is an application error for its reader and the driver's error
// for the log: ErrorCode and ErrorMessage find the first, Error shows the
// second.
type storeError struct {
	public *core.Error
	cause  error
}

func unavailable(cause error, message string) error {
	return &storeError{public: core.Errorf(core.EUnavailable, "%s", message), cause: cause}
}

func (e *storeError) Error() string {
	return "postgres: " + e.public.Message + " (" + e.cause.Error() + ")"
}
func (e *storeError) Unwrap() []error { return []error{e.public, e.cause} }
