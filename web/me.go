package web

import (
	"net/http"
	"strconv"

	"github.com/sendlater/sendlater/core"
)

// The account: the author's part (authorAPI, also on the admin socket) and
// the sensitive part only the public server serves.

func (a *authorAPI) handleMe(w http.ResponseWriter, r *http.Request) {
	if mk, ok := a.account.(core.MeKeeper); ok && a.gens != nil {
		if who, gen, ok := mk.MeGeneration(r.Context()); ok {
			a.writeKeptMe(w, r, mk, who, gen)
			return
		}
	}
	su, err := a.account.Me(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeAppended(w, http.StatusOK, func(b []byte) []byte { return appendSessionUserJSON(b, su) })
}

// profileRequest is PATCH /api/me.
type profileRequest struct {
	Name     *string `json:"name,omitempty"`
	Email    *string `json:"email,omitempty"`
	Picture  *string `json:"picture,omitempty"`
	Timezone *string `json:"timezone,omitempty"`
	// The reminder ladder's steps ("3d", "1d", "2h") and the second
	// reminder address ("" removes it).
	ReminderLadder  *[]string `json:"reminderLadder,omitempty"`
	ReminderAddress *string   `json:"reminderAddress,omitempty"`
}

func (a *authorAPI) handleUpdateMe(w http.ResponseWriter, r *http.Request) {
	var req profileRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	su, err := a.account.UpdateProfile(r.Context(), core.ProfileUpdate{
		Name: req.Name, Email: req.Email, Picture: req.Picture, Timezone: req.Timezone,
		ReminderLadder: req.ReminderLadder, ReminderAddress: req.ReminderAddress,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, NewSessionUserJSON(su))
}

func (a *authorAPI) handleSignOut(w http.ResponseWriter, r *http.Request) {
	if err := a.account.SignOut(r.Context()); err != nil {
		writeError(w, r, err)
		return
	}
	if a.signedOut != nil {
		a.signedOut(w)
	}
	writeData(w, http.StatusOK, nil)
}

func (a *authorAPI) handleListTokens(w http.ResponseWriter, r *http.Request) {
	ts, err := a.account.ListAccessTokens(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, each(ts, NewAccessTokenJSON))
}

// createTokenRequest is POST /api/me/tokens.
type createTokenRequest struct {
	Name string `json:"name"`
	// Scopes are what the token may do; absent (or null): messages:read
	// only.
	Scopes []string `json:"scopes,omitempty"`
}

func (a *authorAPI) handleCreateToken(w http.ResponseWriter, r *http.Request) {
	var req createTokenRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	t, secret, err := a.account.CreateAccessToken(r.Context(), req.Name, req.Scopes)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusCreated, CreatedTokenJSON{AccessTokenJSON: NewAccessTokenJSON(t), Token: secret})
}

func (a *authorAPI) handleRevokeToken(w http.ResponseWriter, r *http.Request) {
	if err := a.account.RevokeAccessToken(r.Context(), r.PathValue("id")); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleChangePassword(w http.ResponseWriter, r *http.Request) {
	var req passwordRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	if err := s.Identities.ChangePassword(r.Context(), req.Password); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleSendVerification(w http.ResponseWriter, r *http.Request) {
	if err := s.Identities.SendEmailVerification(r.Context()); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

// handleSendReminderAddressConfirmation asks the second reminder address
// to confirm again (the settings' "resend").
func (s *Server) handleSendReminderAddressConfirmation(w http.ResponseWriter, r *http.Request) {
	if err := s.Identities.SendReminderAddressConfirmation(r.Context()); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleDeleteMe(w http.ResponseWriter, r *http.Request) {
	if err := s.Identities.DeleteAccount(r.Context()); err != nil {
		writeError(w, r, err)
		return
	}
	s.clearRefreshCookie(w)
	writeData(w, http.StatusOK, nil)
}

// keptMe is the encoded reply of GET /api/me kept for a user (writeKeptMe):
// the reply (untagged: /api/me has no ETag) and how long Me's answer holds.
type keptMe struct {
	reply keptReply
	term  core.MeTerm
}

// What the kept replies of /api/me may hold: at most keptMes of at most
// keptPageMaxSize bytes; one is about 700 bytes, so about 3 MiB for as many
// users, and as much again at the most for their gzip forms.
const keptMes = 4096

// writeKeptMe answers GET /api/me from its encoded reply, kept under the
// user's generation gen, read before Me read anything (MeGeneration), as
// the list's pages are (writeKept): any committed write of the user, their
// sessions or their messages moves it, on every replica, and the next read
// encodes the reply again. It is also made again once its term ends (a
// hold's start or end, which changes the reply without a write) and never
// kept when Me's answer depends on what no generation covers (MeTerm.Keep).
// It is keyed by the user's id: one user's is never another's. A client
// that takes gzip gets its gzip form, made once, when the reply is large
// enough to be worth it.
func (a *authorAPI) writeKeptMe(w http.ResponseWriter, r *http.Request, mk core.MeKeeper, who string, gen uint64) {
	e, ok := a.keptMe.Get(who, gen)
	if !ok || !mk.MeHolds(e.term) {
		su, term, err := mk.MeTerm(r.Context())
		if err != nil {
			writeError(w, r, err)
			return
		}
		body := appendEnvelope(nil, func(b []byte) []byte { return appendSessionUserJSON(b, su) })
		e = keptMe{reply: keptReply{body: body, gz: new(keptGzip), lenH: []string{strconv.Itoa(len(body))}}, term: term}
		if term.Keep && len(body) <= keptPageMaxSize {
			a.keptMe.Put(who, gen, e)
		}
	}
	if rw, ok := w.(*replyWriter); ok && len(e.reply.body) >= compressMinSize && rw.takesGzip() {
		gz := e.reply.gzipped()
		writeReady(w, r, http.StatusOK, gz, nil, e.reply.gz.lenH, true)
		return
	}
	writeReady(w, r, http.StatusOK, e.reply.body, nil, e.reply.lenH, false)
}
