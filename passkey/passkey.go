// Package passkey is WebAuthn for Sendlater's accounts, with
// github.com/go-webauthn/webauthn: the relying party of base_url, the
// registration and sign-in ceremonies, and the signed state a ceremony
// carries from its start to its end. It keeps nothing itself: the
// credentials are core.Passkey records in the store (core.PasskeyStore).
package passkey

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/sendlater/sendlater/core"
)

var _ core.PasskeyCeremonies = (*RelyingParty)(nil)

// StateTTL is how long a ceremony may take from its start to its end.
const StateTTL = 5 * time.Minute

// purposeState keys the HMAC of a ceremony's state.
const purposeState = "sendlater passkey state"

// RelyingParty is the WebAuthn relying party of one base URL: its RP ID
// is the URL's host, its one origin the URL's origin.
type RelyingParty struct {
	wa    *webauthn.WebAuthn
	key   []byte
	clock core.Clock
	// ID and Origin are what the browser must see.
	ID     string
	Origin string
}

// FromBaseURL derives the RP ID and origin from base_url, with a sentence
// for the start-up log when browsers will refuse passkeys there (problem
// is "" when they will not): a base URL that is not a secure context
// (http:// other than localhost), or whose host is an IP address (an RP
// ID must be a domain).
func FromBaseURL(baseURL string) (rpID, origin, problem string, err error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", "", "", fmt.Errorf("passkeys: base_url %q is not an http(s) URL", baseURL)
	}
	host := strings.ToLower(u.Hostname())
	origin = u.Scheme + "://" + strings.ToLower(u.Host)
	switch {
	case net.ParseIP(host) != nil:
		problem = fmt.Sprintf("passkeys are off in browsers: base_url %s has an IP address for host, and a passkey's relying party ID must be a domain name; set base_url to the site's https:// domain", baseURL)
	case u.Scheme == "http" && host != "localhost" && !strings.HasSuffix(host, ".localhost"):
		problem = fmt.Sprintf("passkeys are off in browsers: base_url %s is http://, and browsers offer passkeys only on https:// (or localhost); set base_url to the site's https:// address", baseURL)
	}
	return host, origin, problem, nil
}

// New is the relying party of baseURL, named appName in the browser's
// prompts, its ceremonies' state signed with a key derived from
// signingKey; problem is FromBaseURL's.
func New(baseURL, appName string, signingKey []byte, clock core.Clock) (rp *RelyingParty, problem string, err error) {
	rpID, origin, problem, err := FromBaseURL(baseURL)
	if err != nil {
		return nil, "", err
	}
	if len(signingKey) < core.MinSigningKeyLen {
		return nil, "", errors.New("passkeys: the signing key is too short")
	}
	wa, err := webauthn.New(&webauthn.Config{RPID: rpID, RPDisplayName: appName, RPOrigins: []string{origin}})
	if err != nil {
		if problem != "" { // an IP address: say why in the operator's words, not the library's
			return nil, "", errors.New(problem)
		}
		return nil, "", fmt.Errorf("passkeys: %w", err)
	}
	if clock == nil {
		clock = core.SystemClock{}
	}
	return &RelyingParty{wa: wa, key: core.DeriveKey(signingKey, purposeState), clock: clock, ID: rpID, Origin: origin}, problem, nil
}

// user is a core.User with its passkeys as go-webauthn sees it; the user
// handle is the user's id.
type user struct {
	u  *core.User
	ps []*core.Passkey
}

func (x user) WebAuthnID() []byte          { return []byte(x.u.ID) }
func (x user) WebAuthnName() string        { return x.u.Email }
func (x user) WebAuthnDisplayName() string { return cmpOr(x.u.Name, x.u.Email) }
func (x user) WebAuthnCredentials() []webauthn.Credential {
	cs := make([]webauthn.Credential, 0, len(x.ps))
	for _, p := range x.ps {
		ts := make([]protocol.AuthenticatorTransport, 0, len(p.Transports))
		for _, t := range p.Transports {
			ts = append(ts, protocol.AuthenticatorTransport(t))
		}
		cs = append(cs, webauthn.Credential{
			ID: p.CredentialID, PublicKey: p.PublicKey, AttestationType: p.AttestationType, Transport: ts,
			Flags:         webauthn.NewCredentialFlags(flags(p)),
			Authenticator: webauthn.Authenticator{AAGUID: p.AAGUID, SignCount: p.SignCount},
		})
	}
	return cs
}

func flags(p *core.Passkey) protocol.AuthenticatorFlags {
	f := protocol.FlagUserPresent | protocol.FlagUserVerified
	if p.BackupEligible {
		f |= protocol.FlagBackupEligible
	}
	if p.BackupState {
		f |= protocol.FlagBackupState
	}
	return f
}

func cmpOr(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// CeremonyError is a failed ceremony: to a client, always the same
// core.EInvalid ("The passkey could not be checked"); Cause, for the log,
// says what went wrong.
type CeremonyError struct{ Cause error }

var errPublic = core.Errorf(core.EInvalid, "The passkey could not be checked. Please try again.")

func (e *CeremonyError) Error() string { return "passkey ceremony: " + e.Cause.Error() }
func (e *CeremonyError) Unwrap() error { return errPublic }

func errCeremony(err error) error { return &CeremonyError{Cause: err} }

// state is what a ceremony carries from its start to its end.
type state struct {
	Kind    string               `json:"k"` // "register" or "login"
	UserID  string               `json:"u,omitempty"`
	Expires int64                `json:"e"`
	Session webauthn.SessionData `json:"s"`
}

func (rp *RelyingParty) seal(st state) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, rp.key)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}

func (rp *RelyingParty) open(token, kind, userID string) (*state, error) {
	body, sig, ok := strings.Cut(token, ".")
	b, err1 := base64.RawURLEncoding.Strict().DecodeString(body)
	got, err2 := base64.RawURLEncoding.Strict().DecodeString(sig)
	if !ok || err1 != nil || err2 != nil {
		return nil, errCeremony(errors.New("a malformed state"))
	}
	mac := hmac.New(sha256.New, rp.key)
	mac.Write(b)
	if !hmac.Equal(mac.Sum(nil), got) {
		return nil, errCeremony(errors.New("a state with a wrong signature"))
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, errCeremony(err)
	}
	switch {
	case st.Kind != kind || st.UserID != userID:
		return nil, errCeremony(errors.New("another ceremony's state"))
	case !rp.clock.Now().Before(time.Unix(0, st.Expires)):
		return nil, errCeremony(errors.New("an expired state"))
	}
	return &st, nil
}

// BeginRegistration starts adding a passkey to u, which has the passkeys
// existing (the authenticator is asked not to make a second one): the
// options for navigator.credentials.create, and the state to give back
// to FinishRegistration. The passkey is discoverable (a sign-in without
// typing the email) and verifies its user.
func (rp *RelyingParty) BeginRegistration(u *core.User, existing []*core.Passkey) (options []byte, st string, err error) {
	x := user{u, existing}
	exclude := make([]protocol.CredentialDescriptor, 0, len(existing))
	for _, c := range x.WebAuthnCredentials() {
		exclude = append(exclude, c.Descriptor())
	}
	creation, session, err := rp.wa.BeginRegistration(x,
		webauthn.WithExclusions(exclude),
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, UserVerification: protocol.VerificationRequired,
		}),
	)
	if err != nil {
		return nil, "", err
	}
	options, err = json.Marshal(creation)
	if err != nil {
		return nil, "", err
	}
	st, err = rp.seal(state{Kind: "register", UserID: u.ID, Expires: rp.clock.Now().Add(StateTTL).UnixNano(), Session: *session})
	return options, st, err
}

// FinishRegistration checks the browser's reply (the PublicKeyCredential
// as JSON) against the state BeginRegistration gave for u, and returns
// the passkey to store, named name.
func (rp *RelyingParty) FinishRegistration(u *core.User, existing []*core.Passkey, st string, response []byte, name string) (*core.Passkey, error) {
	s, err := rp.open(st, "register", u.ID)
	if err != nil {
		return nil, err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return nil, errCeremony(err)
	}
	c, err := rp.wa.CreateCredential(user{u, existing}, s.Session, parsed)
	if err != nil {
		return nil, errCeremony(err)
	}
	ts := make([]string, 0, len(c.Transport))
	for _, t := range c.Transport {
		ts = append(ts, string(t))
	}
	now := rp.clock.Now()
	p := &core.Passkey{
		UserID: u.ID, Name: strings.TrimSpace(name), CredentialID: c.ID, PublicKey: c.PublicKey,
		AttestationType: c.AttestationType, AAGUID: c.Authenticator.AAGUID, Transports: ts,
		SignCount: c.Authenticator.SignCount, BackupEligible: c.Flags.BackupEligible, BackupState: c.Flags.BackupState,
		CreatedAt: now, LastUsedAt: now,
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// BeginLogin starts a sign-in with any passkey of this site (the browser
// lists them; conditional says the email field's autofill offers them):
// the options for navigator.credentials.get and the state.
func (rp *RelyingParty) BeginLogin(conditional bool) (options []byte, st string, err error) {
	mediation := protocol.MediationDefault
	if conditional {
		mediation = protocol.MediationConditional
	}
	assertion, session, err := rp.wa.BeginDiscoverableMediatedLogin(mediation, webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, "", err
	}
	options, err = json.Marshal(assertion)
	if err != nil {
		return nil, "", err
	}
	st, err = rp.seal(state{Kind: "login", Expires: rp.clock.Now().Add(StateTTL).UnixNano(), Session: *session})
	return options, st, err
}

// FinishLogin checks the browser's reply against the state BeginLogin
// gave and returns who signed in, with the passkey used as it is now
// (counter, backup state, last use) for the caller to store. A counter
// that did not move forward (a cloned authenticator) is refused.
func (rp *RelyingParty) FinishLogin(st string, response []byte, find core.PasskeyFinder) (*core.User, *core.Passkey, error) {
	s, err := rp.open(st, "login", "")
	if err != nil {
		return nil, nil, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return nil, nil, errCeremony(err)
	}
	var found user
	handler := func(rawID, userHandle []byte) (webauthn.User, error) {
		u, ps, err := find(string(userHandle))
		if err != nil {
			return nil, err
		}
		found = user{u, ps}
		return found, nil
	}
	_, c, err := rp.wa.ValidatePasskeyLogin(handler, s.Session, parsed)
	if err != nil {
		return nil, nil, errCeremony(err)
	}
	if c.Authenticator.CloneWarning {
		return nil, nil, errCeremony(errors.New("the authenticator's counter went back: a cloned authenticator"))
	}
	for _, p := range found.ps {
		if bytes.Equal(p.CredentialID, c.ID) {
			q := *p
			q.SignCount, q.BackupState, q.LastUsedAt = c.Authenticator.SignCount, c.Flags.BackupState, rp.clock.Now()
			return found.u, &q, nil
		}
	}
	return nil, nil, errCeremony(errors.New("the credential is not the user's"))
}
