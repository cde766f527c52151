package core

import (
	"errors"
	"fmt"
	"time"
)

// Error codes. They are the envelope codes of API.md; web maps each to an HTTP
// status in one table.
const (
	EInvalidToken          = "auth/invalid-user-token"
	ERequiresRecentLogin   = "auth/requires-recent-login"
	EEmailInUse            = "auth/email-already-in-use"
	EWrongCredentials      = "auth/wrong-credentials"
	EWeakPassword          = "auth/weak-password"
	ETooManyRequests       = "auth/too-many-requests"
	EProofRequired         = "auth/proof-required"
	EInvalidActionCode     = "auth/invalid-action-code"
	EExpiredActionCode     = "auth/expired-action-code"
	EProviderNotConfigured = "auth/provider-not-configured"
	EOperatorNotAllowed    = "auth/operator-not-allowed"
	EInsufficientScope     = "auth/insufficient-scope" // an access token without the scope a call needs
	EUserDisabled          = "auth/user-disabled"
	EPlanLimit             = "plan/limit-reached"
	EFeatureNotIncluded    = "plan/feature-not-included"
	EMessageNotFound       = "message/not-found"
	EDraftNotFound         = "draft/not-found"
	EAttachmentNotFound    = "attachment/not-found"
	EInvalidPostponeCode   = "message/invalid-postpone-code"
	EUserNotFound          = "user/not-found"
	ETokenNotFound         = "token/not-found"
	EBillingNotConfigured  = "billing/not-configured"
	EInvalidJSON           = "request/invalid-json"
	ETooLarge              = "request/too-large"
	ECrossOrigin           = "request/cross-origin"
	EValidation            = "request/validation"
	EInvalid               = "request/invalid"
	ENotFound              = "request/not-found"
	EConflict              = "request/conflict"
	EIdempotencyKeyUsed    = "request/idempotency-key-used"
	EUnavailable           = "service/unavailable"
	EOutcomeUnknown        = "service/outcome-unknown" // a write whose commit was not confirmed
	EStreamReplaced        = "stream/replaced"
	ECancelled             = "request/cancelled" // the client went away first: not a server error
	EInternal              = "internal/error"
)

// Error is the one error type of the application. Code is machine readable,
// Message is a sentence a user may read. Fields carries per-field validation
// messages; RetryAfter is set on rate-limit errors.
type Error struct {
	Code       string
	Message    string
	Fields     map[string]string
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ValidationError returns a request/validation error carrying fields, or nil
// when fields is empty.
func ValidationError(fields map[string]string) error {
	if len(fields) == 0 {
		return nil
	}
	return &Error{Code: EValidation, Message: "Please check the highlighted fields.", Fields: fields}
}

// ErrorCode returns the code of an application error, or EInternal for any
// other error and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the human message of an application error, or
// "Internal error." for any other error: internal details never reach a user.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

// AsError returns the application error inside err, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// ErrorMessageOrText is an error as an operator reads it: an application
// error's message, else its text.
func ErrorMessageOrText(err error) string {
	if e, ok := AsError(err); ok {
		return e.Message
	}
	return err.Error()
}
