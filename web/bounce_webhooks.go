package web

import (
	"errors"
	"io"
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// MaxBounceWebhookBytes caps a provider's event webhook body: an SNS
// message is at most 256 KiB, and SES's carries the mail's headers.
const MaxBounceWebhookBytes = 300 << 10

// bounceWebhookRoutes serves the sending providers' bounce and complaint
// webhooks (docs/delivery.md); no routes without BounceWebhooks.
func (s *Server) bounceWebhookRoutes(mux *http.ServeMux) {
	if s.BounceWebhooks == nil {
		return
	}
	mux.HandleFunc("POST /api/webhooks/ses", s.handleBounceWebhook("ses", func(r *http.Request, c core.BounceWebhookCall) (core.BounceWebhookOutcome, error) {
		c.MessageType = r.Header.Get("X-Amz-Sns-Message-Type")
		return s.BounceWebhooks.HandleSES(r.Context(), c)
	}))
	mux.HandleFunc("POST /api/webhooks/postmark", s.handleBounceWebhook("postmark", func(r *http.Request, c core.BounceWebhookCall) (core.BounceWebhookOutcome, error) {
		c.User, c.Password, c.HasAuth = r.BasicAuth()
		return s.BounceWebhooks.HandlePostmark(r.Context(), c)
	}))
}

// handleBounceWebhook reads the raw body (the signature covers it as
// sent) and hands it to the provider's handler. A 2xx means processed, or
// seen before, or nothing to act on; anything else changed nothing, and a
// 5xx makes the provider deliver it again.
func (s *Server) handleBounceWebhook(provider string, handle func(*http.Request, core.BounceWebhookCall) (core.BounceWebhookOutcome, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var outcome core.BounceWebhookOutcome
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBounceWebhookBytes))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			err = core.Errorf(core.ETooLarge, "A webhook's body must be at most 300 KiB.")
		case err != nil:
			err = core.Errorf(core.EInvalid, "The webhook's body could not be read.")
		default:
			outcome, err = handle(r, core.BounceWebhookCall{Body: body, Client: clientIP(r)})
		}
		if s.Metrics != nil {
			s.Metrics.BounceWebhook(provider, webhookOutcome(outcome, err))
		}
		if err != nil {
			if core.ErrorCode(err) == core.EWrongCredentials {
				w.Header().Set("WWW-Authenticate", `Basic realm="sendlater webhooks"`)
			}
			if HTTPStatus(core.ErrorCode(err)) >= 500 {
				logger(r).Error("bounce webhook not processed", "err", err)
			}
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, map[string]string{"outcome": string(outcome)})
	}
}

// webhookOutcome is a call's outcome for the metrics: the handler's word,
// or the error's class.
func webhookOutcome(o core.BounceWebhookOutcome, err error) string {
	switch core.ErrorCode(err) {
	case "":
		return string(o)
	case core.EWebhookRefused, core.EWrongCredentials, core.ETooManyRequests:
		return "refused"
	case core.EInvalid, core.EInvalidJSON, core.EValidation, core.ETooLarge, core.ENotFound:
		return "invalid"
	}
	return "error"
}
