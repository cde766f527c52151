package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/sendlater/sendlater/core"
)

// MaxBodyBytes caps every request body.
const MaxBodyBytes = 1 << 20

// statusByCode maps error codes to HTTP statuses: the one table of DESIGN.md
// rule 2. A code that is not here is a 400 when it is a request error, else 500.
var statusByCode = map[string]int{
	core.EInvalidToken:          http.StatusUnauthorized,
	core.ERequiresRecentLogin:   http.StatusUnauthorized,
	core.EWrongCredentials:      http.StatusUnauthorized,
	core.EEmailInUse:            http.StatusConflict,
	core.EWeakPassword:          http.StatusUnprocessableEntity,
	core.ETooManyRequests:       http.StatusTooManyRequests,
	core.EProofRequired:         http.StatusTooManyRequests,
	core.EInvalidActionCode:     http.StatusBadRequest,
	core.EExpiredActionCode:     http.StatusBadRequest,
	core.EProviderNotConfigured: http.StatusNotFound,
	core.EOperatorNotAllowed:    http.StatusForbidden,
	core.EInsufficientScope:     http.StatusForbidden,
	core.EUserDisabled:          http.StatusForbidden,
	core.EPlanLimit:             http.StatusForbidden,
	core.EFeatureNotIncluded:    http.StatusForbidden,
	core.EMessageNotFound:       http.StatusNotFound,
	core.EDraftNotFound:         http.StatusNotFound,
	core.EAttachmentNotFound:    http.StatusNotFound,
	core.EFileLinkExpired:       http.StatusGone,
	core.EFileTestLink:          http.StatusUnauthorized,
	core.ETestEmailsRefused:     http.StatusForbidden,
	core.ERecipientRefused:      http.StatusForbidden,
	core.EInvalidPostponeCode:   http.StatusForbidden,
	core.EUserNotFound:          http.StatusNotFound,
	core.ETokenNotFound:         http.StatusNotFound,
	core.EBillingNotConfigured:  http.StatusNotImplemented,
	core.EBillingNoCustomer:     http.StatusConflict,
	core.EAlreadySubscribed:     http.StatusConflict,
	core.ENothingToBuy:          http.StatusBadRequest,
	core.EContactUs:             http.StatusForbidden,
	core.EInvalidSignature:      http.StatusBadRequest,
	core.EWebhookRefused:        http.StatusForbidden,
	core.EAccountExists:         http.StatusConflict,
	core.ECredentialInUse:       http.StatusConflict,
	core.EEmailRequired:         http.StatusUnprocessableEntity,
	core.EEmailNotVerified:      http.StatusForbidden,
	core.ELastSignInMethod:      http.StatusConflict,
	core.EInvalidState:          http.StatusBadRequest,
	core.EUserCancelled:         http.StatusBadRequest,
	core.EProviderFailed:        http.StatusBadGateway,
	core.EInvalidJSON:           http.StatusBadRequest,
	core.ETooLarge:              http.StatusRequestEntityTooLarge,
	core.ECrossOrigin:           http.StatusForbidden,
	core.EValidation:            http.StatusUnprocessableEntity,
	core.EInvalid:               http.StatusBadRequest,
	core.ENotFound:              http.StatusNotFound,
	core.EConflict:              http.StatusConflict,
	core.EUnavailable:           http.StatusServiceUnavailable,
	core.EOutcomeUnknown:        http.StatusServiceUnavailable,
	core.EStreamReplaced:        http.StatusConflict,
	core.EIdempotencyKeyUsed:    http.StatusConflict,
	core.EInternal:              http.StatusInternalServerError,
	core.ECancelled:             StatusClientClosedRequest,
	// The device flow's answers to a poll are RFC 8628's, all 400.
	core.EAuthorizationPending: http.StatusBadRequest,
	core.ESlowDown:             http.StatusBadRequest,
	core.EExpiredToken:         http.StatusBadRequest,
	core.EAccessDenied:         http.StatusBadRequest,
	core.EInvalidUserCode:      http.StatusBadRequest,
}

// StatusClientClosedRequest is the status (nginx's 499) a request the
// client cancelled is logged with: it answered no one, and no error is
// the server's.
const StatusClientClosedRequest = 499

// HTTPStatus returns the HTTP status of an error code.
func HTTPStatus(code string) int {
	if s, ok := statusByCode[code]; ok {
		return s
	}
	if strings.HasPrefix(code, "request/") {
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

type successEnvelope struct {
	Status string `json:"status"`
	Data   any    `json:"data"`
}

type errorEnvelope struct {
	Status  string            `json:"status"`
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// writeJSON writes v as JSON with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h["Content-Type"] = jsonType
	h["Cache-Control"] = noStore
	// Encoded first, so that the reply has its length: the compression
	// decides on it without holding the bytes back.
	b, err := json.Marshal(v)
	if err != nil {
		w.WriteHeader(status)
		return
	}
	b = append(b, '\n') // as json.Encoder writes it
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	w.Write(b)
}

// writeData writes a success envelope.
func writeData(w http.ResponseWriter, status int, data any) {
	writeJSON(w, status, successEnvelope{Status: "success", Data: data})
}

// writeError writes an error envelope. Internal errors are logged with the
// request id and shown as "Internal error."
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := core.ErrorCode(err)
	if code == core.EInternal && r.Context().Err() != nil {
		// The client cancelled (or closed the connection): what failed is
		// the context it took away, not the server.
		logger(r).Info("request cancelled by the client", "err", err)
		err, code = core.Errorf(core.ECancelled, "The request was cancelled."), core.ECancelled
	}
	if code == core.EInternal {
		logger(r).Error("internal error", "err", err)
	}
	env := errorEnvelope{Status: "error", Code: code, Message: core.ErrorMessage(err)}
	if e, ok := core.AsError(err); ok {
		env.Fields = e.Fields
		if e.RetryAfter > 0 {
			secs := int(e.RetryAfter.Seconds() + 0.999)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
		}
	}
	writeJSON(w, HTTPStatus(code), env)
}

// decodeJSON reads a JSON body into v: JSON only, at most MaxBodyBytes, no
// unknown fields, exactly one value.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return core.Errorf(core.EInvalidJSON, "The request body must be JSON (Content-Type: application/json).")
	}
	body := http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return core.Errorf(core.EInvalidJSON, "The request body must hold one JSON value.")
	}
	return nil
}

func jsonError(err error) error {
	var tooLarge *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooLarge):
		return core.Errorf(core.ETooLarge, "The request body must be at most 1 MiB.")
	case errors.Is(err, io.EOF):
		return core.Errorf(core.EInvalidJSON, "The request body is empty; it must be a JSON object.")
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return core.Errorf(core.EInvalidJSON, "The request body is not valid JSON.")
	case errors.As(err, &typ) && typ.Field == "":
		return core.Errorf(core.EInvalidJSON, "The request body must be a JSON object, not %s.", jsonKind(typ.Value))
	case errors.As(err, &typ):
		msg := fmt.Sprintf("The field %q must be %s, not %s.", typ.Field, goKind(typ.Type), jsonKind(typ.Value))
		return &core.Error{Code: core.EInvalidJSON, Message: msg, Fields: map[string]string{typ.Field: msg}}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return core.Errorf(core.EInvalidJSON, "The field %s is not allowed.", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return core.Errorf(core.EInvalidJSON, "The request body is not valid JSON.")
}

// goKind names what a Go type holds in the words of a JSON document.
func goKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

// jsonKind names the kind of JSON value encoding/json reports ("string",
// "number 1.5", "bool", "array", "object").
func jsonKind(v string) string {
	switch {
	case v == "string":
		return "text"
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number"):
		return "a number"
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	}
	return v
}

// logger returns the request's logger (with its request id).
func logger(r *http.Request) *slog.Logger {
	if rq, ok := r.Context().Value(requestKey{}).(*request); ok {
		return rq.logger()
	}
	return slog.Default()
}
