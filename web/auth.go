package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
)

// The refresh cookie. Over https it carries the __Host- prefix, which the
// browser only accepts with Secure, no Domain and Path=/; over plain http
// (development) it is scoped to /api/auth.
const (
	refreshCookieSecure = "__Host-sl_refresh"
	refreshCookiePlain  = "sl_refresh"
)

func (s *Server) secure() bool { return strings.HasPrefix(s.BaseURL, "https://") }

// refreshCookieName is the name of the refresh cookie for the server's base URL.
func (s *Server) refreshCookieName() string {
	if s.secure() {
		return refreshCookieSecure
	}
	return refreshCookiePlain
}

// refreshCookie is the refresh cookie holding value until expires; an empty
// value deletes it.
func (s *Server) refreshCookie(value string, expires time.Time) *http.Cookie {
	c := &http.Cookie{
		Name:     s.refreshCookieName(),
		Value:    value,
		Path:     "/api/auth",
		HttpOnly: true,
		Secure:   s.secure(),
		SameSite: http.SameSiteStrictMode,
	}
	if s.secure() {
		c.Path = "/"
	}
	if value == "" {
		c.MaxAge = -1
	} else {
		c.Expires = expires
		c.MaxAge = int(expires.Sub(s.Clock.Now()).Seconds())
	}
	return c
}

func (s *Server) clearRefreshCookie(w http.ResponseWriter) {
	s.setRefreshCookie(w, "", time.Time{})
}

// TokensJSON is a sign-in's reply; the refresh token travels in the cookie.
// RecoveryCodesLeft is set after a sign-in with a recovery code.
type TokensJSON struct {
	IDToken           string           `json:"idToken"`
	ExpiresAt         int64            `json:"expiresAt"`
	User              *SessionUserJSON `json:"user,omitempty"`
	RecoveryCodesLeft *int             `json:"recoveryCodesLeft,omitempty"`
}

// SecondFactorJSON is a sign-in's reply for an account with a second
// factor: no session yet, a challenge to send back with a code
// (POST /api/auth/second-factor).
type SecondFactorJSON struct {
	SecondFactor SecondFactorChallengeJSON `json:"secondFactor"`
}

// SecondFactorChallengeJSON is the challenge of SecondFactorJSON.
type SecondFactorChallengeJSON struct {
	Token     string   `json:"token"`
	ExpiresAt int64    `json:"expiresAt"`
	Methods   []string `json:"methods"`
}

// setSessionCookies sets the refresh cookie when the tokens carry a new
// refresh token.
func (s *Server) setSessionCookies(w http.ResponseWriter, t *core.Tokens) {
	if t.RefreshToken != "" {
		s.setRefreshCookie(w, t.RefreshToken, t.RefreshExpiresAt)
	}
}

// writeTokens sets the refresh cookie (when the tokens carry a new refresh
// token) and writes the ID token and, after a sign-in, the session user.
func (s *Server) writeTokens(w http.ResponseWriter, status int, t *core.Tokens) {
	if sf := t.SecondFactor; sf != nil {
		writeData(w, status, SecondFactorJSON{SecondFactorChallengeJSON{
			Token: sf.Token, ExpiresAt: millis(sf.ExpiresAt), Methods: sf.Methods}})
		return
	}
	s.setSessionCookies(w, t)
	out := TokensJSON{IDToken: t.IDToken, ExpiresAt: millis(t.ExpiresAt)}
	if t.Session != nil {
		out.User = NewSessionUserJSON(t.Session)
	}
	if t.UsedRecoveryCode {
		left := t.RecoveryCodesLeft
		out.RecoveryCodesLeft = &left
	}
	writeData(w, status, out)
}

func authClient(r *http.Request) core.Client {
	return core.Client{Address: clientIP(r), UserAgent: r.UserAgent()}
}

type signUpRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	Name     string `json:"name"`
	Timezone string `json:"timezone"`
}

func (s *Server) handleSignUp(w http.ResponseWriter, r *http.Request) {
	var req signUpRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	t, err := s.Identities.SignUp(r.Context(), core.SignUpInput{
		Email: req.Email, Password: req.Password, Name: req.Name, Timezone: req.Timezone,
	}, authClient(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.writeTokens(w, http.StatusCreated, t)
}

type signInRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	// Proof is the solved puzzle of POST /api/auth/challenge, needed
	// while the account is under attack (auth/proof-required).
	Proof *proofJSON `json:"proof,omitempty"`
}

type proofJSON struct {
	Challenge string `json:"challenge"`
	Nonce     string `json:"nonce"`
}

// authClientWithProof is authClient with the solved puzzle p sent, if any.
func authClientWithProof(r *http.Request, p *proofJSON) core.Client {
	c := authClient(r)
	if p != nil {
		c.Proof = core.Proof{Challenge: p.Challenge, Nonce: p.Nonce}
	}
	return c
}

func (s *Server) handleSignIn(w http.ResponseWriter, r *http.Request) {
	var req signInRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	c := authClientWithProof(r, req.Proof)
	t, err := s.Identities.SignIn(r.Context(), req.Email, req.Password, c)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.writeTokens(w, http.StatusOK, t)
}

// handleToken exchanges the refresh cookie for a new ID token and a new
// refresh cookie. A failed exchange deletes the cookie.
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie(s.refreshCookieName())
	if err != nil || c.Value == "" {
		writeError(w, r, core.Errorf(core.EInvalidToken, "Please sign in."))
		return
	}
	t, err := s.Identities.Refresh(r.Context(), c.Value)
	if err != nil {
		if core.ErrorCode(err) == core.EInvalidToken {
			s.clearRefreshCookie(w)
		}
		writeError(w, r, err)
		return
	}
	s.writeTokens(w, http.StatusOK, t)
}

// challengeJSON is a puzzle to solve before signing in (docs/security.md).
type challengeJSON struct {
	Challenge  string `json:"challenge"`
	Difficulty int    `json:"difficulty"`
	ExpiresAt  int64  `json:"expiresAt"`
}

func (s *Server) handleSignInChallenge(w http.ResponseWriter, r *http.Request) {
	var req emailRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	ch, err := s.Identities.SignInChallenge(r.Context(), req.Email)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, challengeJSON{Challenge: ch.Challenge, Difficulty: ch.Difficulty, ExpiresAt: millis(ch.ExpiresAt)})
}

type passwordRequest struct {
	Password string `json:"password"`
}

func (s *Server) handleReauth(w http.ResponseWriter, r *http.Request) {
	var req passwordRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	t, err := s.Identities.Reauth(r.Context(), req.Password, authClient(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.writeTokens(w, http.StatusOK, t)
}

type emailRequest struct {
	Email string `json:"email"`
}

func (s *Server) handlePasswordReset(w http.ResponseWriter, r *http.Request) {
	var req emailRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	if err := s.Identities.RequestPasswordReset(r.Context(), req.Email, authClient(r)); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

type resetConfirmRequest struct {
	OOBCode  string `json:"oobCode"`
	Password string `json:"password"`
}

func (s *Server) handlePasswordResetConfirm(w http.ResponseWriter, r *http.Request) {
	var req resetConfirmRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	if err := s.Identities.ConfirmPasswordReset(r.Context(), req.OOBCode, req.Password); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

type actionRequest struct {
	OOBCode string `json:"oobCode"`
}

func (s *Server) handleActionCheck(w http.ResponseWriter, r *http.Request) {
	var req actionRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	info, err := s.Identities.CheckActionCode(r.Context(), req.OOBCode)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, ActionInfoJSON{Mode: info.Mode, Email: info.Email})
}

func (s *Server) handleActionApply(w http.ResponseWriter, r *http.Request) {
	var req actionRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	info, err := s.Identities.ApplyActionCode(r.Context(), req.OOBCode)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, ActionInfoJSON{Mode: info.Mode, Email: info.Email})
}
