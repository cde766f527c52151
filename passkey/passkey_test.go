package passkey_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/passkey"
)

var key = []byte(strings.Repeat("k", 32))

// authenticator is a software passkey authenticator (ES256, no
// attestation), as a browser's virtual authenticator is: it makes one
// discoverable credential and signs assertions with it.
type authenticator struct {
	t       *testing.T
	priv    *ecdsa.PrivateKey
	credID  []byte
	user    []byte
	rpID    string
	origin  string
	counter uint32
}

func newAuthenticator(t *testing.T, rpID, origin string) *authenticator {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	return &authenticator{t: t, priv: priv, credID: id, rpID: rpID, origin: origin}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (a *authenticator) clientData(kind, challenge string) []byte {
	b, _ := json.Marshal(map[string]any{"type": kind, "challenge": challenge, "origin": a.origin, "crossOrigin": false})
	return b
}

func (a *authenticator) authData(attested bool) []byte {
	h := sha256.Sum256([]byte(a.rpID))
	flags := byte(flagUP | flagUV | flagBE | flagBS)
	d := append([]byte{}, h[:]...)
	if attested {
		flags |= flagAT
	}
	d = append(d, flags)
	d = binary.BigEndian.AppendUint32(d, a.counter)
	if attested {
		cose, err := webauthncbor.Marshal(webauthncose.EC2PublicKeyData{
			PublicKeyData: webauthncose.PublicKeyData{KeyType: int64(webauthncose.EllipticKey), Algorithm: int64(webauthncose.AlgES256)},
			Curve:         1, XCoord: pad32(a.priv.X.Bytes()), YCoord: pad32(a.priv.Y.Bytes()),
		})
		if err != nil {
			a.t.Fatal(err)
		}
		d = append(d, make([]byte, 16)...) // AAGUID
		d = binary.BigEndian.AppendUint16(d, uint16(len(a.credID)))
		d = append(d, a.credID...)
		d = append(d, cose...)
	}
	return d
}

// The flags of authenticator data (WebAuthn §6.1).
const (
	flagUP = 1 << 0
	flagUV = 1 << 2
	flagBE = 1 << 3
	flagBS = 1 << 4
	flagAT = 1 << 6
)

func pad32(b []byte) []byte { return append(make([]byte, 32-len(b)), b...) }

func (a *authenticator) sign(authData, clientData []byte) []byte {
	ch := sha256.Sum256(clientData)
	digest := sha256.Sum256(append(append([]byte{}, authData...), ch[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.priv, digest[:])
	if err != nil {
		a.t.Fatal(err)
	}
	return sig
}

// create answers navigator.credentials.create's options.
func (a *authenticator) create(options []byte) []byte {
	var o struct {
		PublicKey struct {
			Challenge string `json:"challenge"`
			User      struct {
				ID string `json:"id"`
			} `json:"user"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(options, &o); err != nil {
		a.t.Fatal(err)
	}
	a.user, _ = base64.RawURLEncoding.DecodeString(o.PublicKey.User.ID)
	cd := a.clientData("webauthn.create", o.PublicKey.Challenge)
	att, err := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": a.authData(true)})
	if err != nil {
		a.t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"id": b64(a.credID), "rawId": b64(a.credID), "type": "public-key",
		"response": map[string]any{"attestationObject": b64(att), "clientDataJSON": b64(cd), "transports": []string{"internal"}}})
	return b
}

// get answers navigator.credentials.get's options.
func (a *authenticator) get(options []byte) []byte {
	var o struct {
		PublicKey struct {
			Challenge string `json:"challenge"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(options, &o); err != nil {
		a.t.Fatal(err)
	}
	a.counter++
	cd := a.clientData("webauthn.get", o.PublicKey.Challenge)
	ad := a.authData(false)
	b, _ := json.Marshal(map[string]any{"id": b64(a.credID), "rawId": b64(a.credID), "type": "public-key",
		"response": map[string]any{"authenticatorData": b64(ad), "clientDataJSON": b64(cd), "signature": b64(a.sign(ad, cd)), "userHandle": b64(a.user)}})
	return b
}

func mustRP(t *testing.T, base string, clock core.Clock) *passkey.RelyingParty {
	t.Helper()
	rp, problem, err := passkey.New(base, "Sendlater", key, clock)
	if err != nil || problem != "" {
		t.Fatalf("New(%s) = %v, %q", base, err, problem)
	}
	return rp
}

func wantInvalid(t *testing.T, err error) {
	t.Helper()
	var ce *passkey.CeremonyError
	if core.ErrorCode(err) != core.EInvalid || !errors.As(err, &ce) {
		t.Fatalf("error %v, want a ceremony's %s", err, core.EInvalid)
	}
}

func TestRegisterAndSignInWithAPasskey(t *testing.T) {
	clock := core.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	rp := mustRP(t, "https://sendlater.example", clock)
	ann := &core.User{ID: "ann0000000000000000001", Email: "ann@example.com", Name: "Ann"}
	dev := newAuthenticator(t, "sendlater.example", "https://sendlater.example")

	options, st, err := rp.BeginRegistration(ann, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(options), `"residentKey":"required"`) || !strings.Contains(string(options), `"id":"sendlater.example"`) {
		t.Fatalf("registration options %s", options)
	}
	p, err := rp.FinishRegistration(ann, nil, st, dev.create(options), " MacBook ")
	if err != nil {
		t.Fatal(err)
	}
	if p.UserID != ann.ID || p.Name != "MacBook" || string(p.CredentialID) != string(dev.credID) || len(p.PublicKey) == 0 ||
		!p.BackupEligible || !p.BackupState || !p.CreatedAt.Equal(clock.Now()) {
		t.Fatalf("passkey %+v", p)
	}
	// The state is the registration's, ann's, and lasts StateTTL.
	_, err = rp.FinishRegistration(&core.User{ID: "bob"}, nil, st, dev.create(options), "x")
	wantInvalid(t, err)

	find := func(id string) (*core.User, []*core.Passkey, error) {
		if id != ann.ID {
			return nil, nil, core.Errorf(core.EUserNotFound, "no")
		}
		return ann, []*core.Passkey{p}, nil
	}
	clock.Add(time.Hour)
	options, st, err = rp.BeginLogin(true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(options), `"mediation":"conditional"`) {
		t.Fatalf("login options %s", options)
	}
	u, used, err := rp.FinishLogin(st, dev.get(options), find)
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != ann.ID || used.SignCount != 1 || !used.LastUsedAt.Equal(clock.Now()) {
		t.Fatalf("signed in %+v with %+v", u, used)
	}

	// A registration's state does not sign in; an expired or altered state fails.
	_, _, err = rp.FinishLogin(st[:len(st)-2]+"AA", dev.get(options), find)
	wantInvalid(t, err)
	clock.Add(passkey.StateTTL)
	_, _, err = rp.FinishLogin(st, dev.get(options), find)
	wantInvalid(t, err)

	// Another key with the same credential id: refused.
	options, st, _ = rp.BeginLogin(false)
	thief := newAuthenticator(t, "sendlater.example", "https://sendlater.example")
	thief.credID, thief.user = dev.credID, dev.user
	_, _, err = rp.FinishLogin(st, thief.get(options), find)
	wantInvalid(t, err)

	// A counter that went back: a cloned authenticator.
	p = used
	options, st, _ = rp.BeginLogin(false)
	dev.counter = 0
	_, _, err = rp.FinishLogin(st, dev.get(options), find)
	wantInvalid(t, err)
}

func TestAnotherSiteCannotUseThePasskey(t *testing.T) {
	rp := mustRP(t, "https://sendlater.example", nil)
	ann := &core.User{ID: "ann0000000000000000001", Email: "ann@example.com"}
	for _, dev := range []*authenticator{
		newAuthenticator(t, "sendlater.example", "https://evil.example"),     // a phishing page's origin
		newAuthenticator(t, "evil.example", "https://sendlater.example"),     // another RP ID
		newAuthenticator(t, "sendlater.example", "http://sendlater.example"), // not the https origin
	} {
		options, st, err := rp.BeginRegistration(ann, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = rp.FinishRegistration(ann, nil, st, dev.create(options), "x")
		wantInvalid(t, err)
	}
}

func TestRelyingPartyFromBaseURL(t *testing.T) {
	for _, c := range []struct{ base, id, origin, problem string }{
		{"https://sendlater.example", "sendlater.example", "https://sendlater.example", ""},
		{"https://Sendlater.Example:8443/", "sendlater.example", "https://sendlater.example:8443", ""},
		{"http://localhost:8080", "localhost", "http://localhost:8080", ""},
		{"http://sendlater.example", "sendlater.example", "http://sendlater.example", "browsers offer passkeys only on https://"},
		{"https://192.0.2.1", "192.0.2.1", "https://192.0.2.1", "must be a domain name"},
	} {
		id, origin, problem, err := passkey.FromBaseURL(c.base)
		if err != nil || id != c.id || origin != c.origin || (c.problem == "") != (problem == "") || !strings.Contains(problem, c.problem) {
			t.Errorf("FromBaseURL(%s) = %q, %q, %q, %v", c.base, id, origin, problem, err)
		}
		if problem != "" && strings.Contains(problem, "\n") {
			t.Errorf("the start-up line has a line break: %q", problem)
		}
	}
	if _, _, _, err := passkey.FromBaseURL("ftp://x"); err == nil {
		t.Error("FromBaseURL(ftp://x) passed")
	}
}
