package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// routes registers every route of the public server in one place.
func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.HandleFunc("GET /api/plans", s.gate.quick(s.handlePlans))

	mux.HandleFunc("POST /api/auth/signup", s.handleSignUp)
	mux.HandleFunc("POST /api/auth/signin", s.handleSignIn)
	mux.HandleFunc("POST /api/auth/challenge", s.handleSignInChallenge)
	mux.HandleFunc("POST /api/auth/second-factor", s.handleSecondFactor)
	mux.HandleFunc("POST /api/auth/token", s.handleToken)
	mux.HandleFunc("POST /api/auth/reauth", s.authed(s.handleReauth))
	mux.HandleFunc("POST /api/auth/password-reset", s.handlePasswordReset)
	mux.HandleFunc("POST /api/auth/password-reset/confirm", s.handlePasswordResetConfirm)
	mux.HandleFunc("POST /api/auth/action/check", s.handleActionCheck)
	mux.HandleFunc("POST /api/auth/action/apply", s.handleActionApply)
	mux.HandleFunc("GET /api/auth/providers", s.handleProviders)
	mux.HandleFunc("GET /api/auth/oauth/{provider}/start", s.handleOAuthStart)
	mux.HandleFunc("GET /api/auth/oauth/{provider}/callback", s.handleOAuthCallback)
	mux.HandleFunc("POST /api/auth/oauth/{provider}/email", s.handleOAuthEmail)
	mux.HandleFunc("POST /api/auth/reauth/{provider}", s.authed(s.handleOAuthStartFor(core.IntentReauth)))
	mux.HandleFunc("GET "+popupScriptPath, handlePopupScript)
	mux.HandleFunc("GET /api/me/providers", s.authed(s.handleLinkedAccounts))
	mux.HandleFunc("POST /api/me/providers/{provider}", s.authed(s.handleOAuthStartFor(core.IntentLink)))
	mux.HandleFunc("DELETE /api/me/providers/{provider}", s.authed(s.handleUnlink))
	mux.HandleFunc("DELETE /api/me", s.authed(s.handleDeleteMe))
	mux.HandleFunc("POST /api/me/password", s.authed(s.handleChangePassword))
	mux.HandleFunc("POST /api/me/totp", s.authed(s.handleBeginTOTP))
	mux.HandleFunc("POST /api/me/totp/confirm", s.authed(s.handleConfirmTOTP))
	mux.HandleFunc("DELETE /api/me/totp", s.authed(s.handleDisableTOTP))
	mux.HandleFunc("POST /api/me/recovery-codes", s.authed(s.handleRegenerateRecoveryCodes))
	mux.HandleFunc("POST /api/me/verify-email", s.authed(s.handleSendVerification))
	mux.HandleFunc("POST /api/me/reminder-address/confirm", s.authed(s.handleSendReminderAddressConfirmation))
	mux.HandleFunc("GET /api/me/export", s.authed(s.handleExport))
	mux.HandleFunc("GET /api/me/files", s.authed(s.handleFilesUsage))
	mux.HandleFunc("POST /api/me/webhook-secret", s.authed(s.handleRotateWebhookSecret))
	s.signInRoutes(mux)
	s.passkeyRoutes(mux)
	s.deviceRoutes(mux)

	// The author's messages, live list and account (also on the admin
	// socket, for an operator acting for a user).
	author := &authorAPI{
		messages: s.Messages, account: s.Identities, heartbeat: s.StreamHeartbeat,
		stopping: s.shutdown.done(), signedOut: s.clearRefreshCookie, gens: s.Generations,
		kept: core.GenerationCache[keptReply]{Max: keptPages}, keptMe: core.GenerationCache[keptMe]{Max: keptMes},
		metrics: s.Metrics,
	}
	author.routes(mux, s.authed, func(h http.HandlerFunc) http.HandlerFunc { return s.authedBy(streamToken, h) }, s.gate.quick)

	if s.Drafts != nil {
		draftsRoutes(mux, s.Drafts, s.authed)
	}
	if s.Attachments != nil {
		filesRoutes(mux, s.Attachments, s.authed)
	}

	mux.HandleFunc("POST /api/contact", s.handleContact)
	if s.PageViews != nil {
		mux.HandleFunc("POST /api/pageviews", s.handlePageView())
	}
	mux.HandleFunc("POST /api/stripe-create-checkout-session", s.authed(s.handleCheckout))
	mux.HandleFunc("POST /api/stripe-create-billing-session", s.authed(s.handlePortal))
	mux.HandleFunc("POST /api/stripe-webhook", s.handleStripeWebhook)
	s.bounceWebhookRoutes(mux)

	mux.HandleFunc("GET /api/postpone/{id}", s.handleShowPostpone)
	mux.HandleFunc("POST /api/postpone/{id}", s.handlePostponeByCode)
	if s.Opens != nil {
		mux.HandleFunc("GET /api/open/{token}", s.handleOpenSealed)
	}
	if s.FileLinks != nil {
		mux.HandleFunc("GET "+core.FileLinkPath+"{token}", s.handleFileLink)
	}
	mux.HandleFunc("GET /unsubscribe/{token}", s.handleRefusalPage)
	mux.HandleFunc("POST /unsubscribe/{token}", s.handleRefuse)

	mux.HandleFunc("/api/", handleAPINotFound)
	mux.Handle("/", s.spaHandler())
}

func handleAPINotFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, core.Errorf(core.ENotFound, "There is no API endpoint %s %s.", r.Method, r.URL.Path))
}
