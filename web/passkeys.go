package web

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/sendlater/sendlater/core"
)

// Passkeys: the signed-in user's (add, list, remove) and signing in with
// one. The public server alone serves them.

// PasskeyJSON is a passkey as its owner's list shows it.
type PasskeyJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	CreatedAt  int64  `json:"createdAt"`
	LastUsedAt int64  `json:"lastUsedAt,omitempty"`
	Synced     bool   `json:"synced"`
}

// NewPasskeyJSON is p on the wire.
func NewPasskeyJSON(p core.PasskeyInfo) PasskeyJSON {
	return PasskeyJSON{ID: p.ID, Name: p.Name, CreatedAt: millis(p.CreatedAt), LastUsedAt: millis(p.LastUsedAt), Synced: p.Synced}
}

// CeremonyJSON starts a ceremony: the options for the browser's
// navigator.credentials call (publicKey, mediation) and the state to send
// back with its reply.
type CeremonyJSON struct {
	Options json.RawMessage `json:"options"`
	State   string          `json:"state"`
}

// passkeyReply is the end of a ceremony: the state, the browser's
// PublicKeyCredential (toJSON()) and, to add one, its name.
type passkeyReply struct {
	State    string          `json:"state"`
	Response json.RawMessage `json:"response"`
	Name     string          `json:"name,omitempty"`
}

type passkeyRename struct {
	Name string `json:"name"`
}

// passkeySecondFactor ends a sign-in's second step with a passkey: the
// challenge's token and a passkey sign-in ceremony's state and reply.
type passkeySecondFactor struct {
	Token    string          `json:"token"`
	State    string          `json:"state"`
	Response json.RawMessage `json:"response"`
}

type passkeyBegin struct {
	Conditional bool `json:"conditional,omitempty"`
}

func (s *Server) passkeys() core.PasskeyAccounts {
	if s.Passkeys != nil {
		return s.Passkeys
	}
	p, _ := s.Identities.(core.PasskeyAccounts)
	return p
}

// passkeysOn tells whether passkeys work on this server's pages: a
// service that says (core.Auth: a relying party) or any, at a base_url
// where browsers offer them.
func (s *Server) passkeysOn() bool {
	pk := s.passkeys()
	if pk == nil || !browsersOfferPasskeys(s.BaseURL) {
		return false
	}
	if on, ok := pk.(interface{ PasskeysEnabled() bool }); ok {
		return on.PasskeysEnabled()
	}
	return true
}

func (s *Server) passkeyRoutes(mux *http.ServeMux) {
	pk := s.passkeys()
	if pk == nil {
		return
	}
	mux.HandleFunc("GET /api/me/passkeys", s.authed(func(w http.ResponseWriter, r *http.Request) {
		ps, err := pk.ListPasskeys(r.Context())
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, each(ps, NewPasskeyJSON))
	}))
	mux.HandleFunc("POST /api/me/passkeys/begin", s.authed(func(w http.ResponseWriter, r *http.Request) {
		options, state, err := pk.BeginPasskeyRegistration(r.Context())
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, CeremonyJSON{Options: options, State: state})
	}))
	mux.HandleFunc("POST /api/me/passkeys", s.authed(func(w http.ResponseWriter, r *http.Request) {
		var req passkeyReply
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		p, err := pk.FinishPasskeyRegistration(r.Context(), req.State, req.Response, req.Name)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusCreated, NewPasskeyJSON(p))
	}))
	mux.HandleFunc("DELETE /api/me/passkeys/{id}", s.authed(func(w http.ResponseWriter, r *http.Request) {
		if err := pk.RemovePasskey(r.Context(), r.PathValue("id")); err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, nil)
	}))
	mux.HandleFunc("PATCH /api/me/passkeys/{id}", s.authed(func(w http.ResponseWriter, r *http.Request) {
		var req passkeyRename
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		p, err := pk.RenamePasskey(r.Context(), r.PathValue("id"), req.Name)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, NewPasskeyJSON(p))
	}))
	mux.HandleFunc("POST /api/auth/second-factor/passkey", func(w http.ResponseWriter, r *http.Request) {
		var req passkeySecondFactor
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		t, err := pk.CompleteSecondFactorWithPasskey(r.Context(), req.Token, req.State, req.Response, authClient(r))
		if err != nil {
			writeError(w, r, err)
			return
		}
		s.writeTokens(w, http.StatusOK, t)
	})
	mux.HandleFunc("POST /api/auth/passkey/begin", func(w http.ResponseWriter, r *http.Request) {
		var req passkeyBegin // an empty body: no conditional mediation
		if r.ContentLength != 0 {
			if err := decodeJSON(w, r, &req); err != nil {
				writeError(w, r, err)
				return
			}
		}
		options, state, err := pk.BeginPasskeySignIn(r.Context(), req.Conditional)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, CeremonyJSON{Options: options, State: state})
	})
	mux.HandleFunc("POST /api/auth/passkey", func(w http.ResponseWriter, r *http.Request) {
		var req passkeyReply
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		t, err := pk.PasskeySignIn(r.Context(), req.State, req.Response, authClient(r))
		if err != nil {
			writeError(w, r, err)
			return
		}
		s.writeTokens(w, http.StatusOK, t)
	})
}

// browsersOfferPasskeys tells whether browsers run WebAuthn for pages at
// base: a domain name (never an IP address) over https://, or localhost
// (passkey.FromBaseURL logs the other cases at start-up).
func browsersOfferPasskeys(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "" || net.ParseIP(host) != nil {
		return false
	}
	return u.Scheme == "https" || host == "localhost" || strings.HasSuffix(host, ".localhost")
}
