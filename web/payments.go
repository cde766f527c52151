package web

import (
	"errors"
	"io"
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// MaxWebhookBytes caps a Stripe webhook's body: Stripe's events are a few
// kilobytes.
const MaxWebhookBytes = 256 << 10

// payments is the server's Payments: PaymentsOff until one is wired.
func (s *Server) payments() core.Payments {
	if s.Payments == nil {
		return core.PaymentsOff{}
	}
	return s.Payments
}

// PlanJSON is a plan of the pricing screen; purchasable: checkout sells it
// here (else a paid plan is arranged through the contact page).
type PlanJSON struct {
	ID          core.PlanID `json:"id"`
	Name        string      `json:"name"`
	Price       string      `json:"price"`
	Perks       []string    `json:"perks"`
	Purchasable bool        `json:"purchasable"`
}

func (s *Server) handlePlans(w http.ResponseWriter, r *http.Request) {
	writeData(w, http.StatusOK, s.planList())
}

// planList is the plans this server sells, as GET /api/plans answers (and
// the prerendered pricing page shows, prerender.go).
func (s *Server) planList() []PlanJSON {
	return each(s.payments().Plans(), func(p core.Plan) PlanJSON {
		return PlanJSON{ID: p.ID, Name: p.Name, Price: p.Price, Perks: p.Perks, Purchasable: p.Purchasable}
	})
}

type checkoutRequest struct {
	PriceID    string      `json:"priceId"`
	PlanID     core.PlanID `json:"planId"`
	SuccessURL string      `json:"successUrl"`
	CancelURL  string      `json:"cancelUrl"`
}

// CheckoutJSON is where the browser goes to pay: url (id is Stripe's
// checkout session, for Stripe.js's redirectToCheckout of SPEC.md).
type CheckoutJSON struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

func (s *Server) handleCheckout(w http.ResponseWriter, r *http.Request) {
	var req checkoutRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	cs, err := s.payments().Checkout(r.Context(), core.CheckoutRequest{
		PlanID: req.PlanID, PriceID: req.PriceID, SuccessURL: req.SuccessURL, CancelURL: req.CancelURL,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, CheckoutJSON{ID: cs.ID, URL: cs.URL})
}

type portalRequest struct {
	ReturnURL string `json:"returnUrl"`
}

func (s *Server) handlePortal(w http.ResponseWriter, r *http.Request) {
	var req portalRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	url, err := s.payments().Portal(r.Context(), req.ReturnURL)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, URLJSON{URL: url})
}

// handleStripeWebhook hands the raw body and its signature to Payments.
// Anything not applied answers an error (5xx when applying failed), so
// Stripe delivers it again; a 2xx means applied or seen before.
func (s *Server) handleStripeWebhook(w http.ResponseWriter, r *http.Request) {
	payload, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxWebhookBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeError(w, r, core.Errorf(core.ETooLarge, "A webhook's body must be at most 256 KiB."))
		return
	case err != nil:
		writeError(w, r, core.Errorf(core.EInvalid, "The webhook's body could not be read."))
		return
	}
	if err := s.payments().HandleWebhook(r.Context(), payload, r.Header.Get("Stripe-Signature")); err != nil {
		if code := core.ErrorCode(err); HTTPStatus(code) >= 500 && code != core.EBillingNotConfigured {
			logger(r).Error("stripe webhook not applied", "err", err)
		}
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}
