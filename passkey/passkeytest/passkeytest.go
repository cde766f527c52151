// Package passkeytest is a software passkey authenticator for tests, as a
// browser's virtual authenticator is: ES256, no attestation, one
// discoverable credential.
package passkeytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"
)

// Authenticator is a software passkey authenticator (ES256, no
// attestation), as a browser's virtual authenticator is: it makes one
// discoverable credential and signs assertions with it.
type Authenticator struct {
	t       testing.TB
	priv    *ecdsa.PrivateKey
	CredID  []byte // its credential id
	User    []byte // the user handle it was made for
	rpID    string
	origin  string
	Counter uint32 // signatures so far
}

// New is an authenticator that answers for rpID on the page of origin.
func New(t testing.TB, rpID, origin string) *Authenticator {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	return &Authenticator{t: t, priv: priv, CredID: id, rpID: rpID, origin: origin}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (a *Authenticator) clientData(kind, challenge string) []byte {
	b, _ := json.Marshal(map[string]any{"type": kind, "challenge": challenge, "origin": a.origin, "crossOrigin": false})
	return b
}

func (a *Authenticator) authData(attested bool) []byte {
	h := sha256.Sum256([]byte(a.rpID))
	flags := byte(flagUP | flagUV | flagBE | flagBS)
	d := append([]byte{}, h[:]...)
	if attested {
		flags |= flagAT
	}
	d = append(d, flags)
	d = binary.BigEndian.AppendUint32(d, a.Counter)
	if attested {
		cose, err := webauthncbor.Marshal(webauthncose.EC2PublicKeyData{
			PublicKeyData: webauthncose.PublicKeyData{KeyType: int64(webauthncose.EllipticKey), Algorithm: int64(webauthncose.AlgES256)},
			Curve:         1, XCoord: pad32(a.priv.X.Bytes()), YCoord: pad32(a.priv.Y.Bytes()),
		})
		if err != nil {
			a.t.Fatal(err)
		}
		d = append(d, make([]byte, 16)...) // AAGUID
		d = binary.BigEndian.AppendUint16(d, uint16(len(a.CredID)))
		d = append(d, a.CredID...)
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

func (a *Authenticator) sign(authData, clientData []byte) []byte {
	ch := sha256.Sum256(clientData)
	digest := sha256.Sum256(append(append([]byte{}, authData...), ch[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.priv, digest[:])
	if err != nil {
		a.t.Fatal(err)
	}
	return sig
}

// Create answers navigator.credentials.create's options.
func (a *Authenticator) Create(options []byte) []byte {
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
	a.User, _ = base64.RawURLEncoding.DecodeString(o.PublicKey.User.ID)
	cd := a.clientData("webauthn.create", o.PublicKey.Challenge)
	att, err := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": a.authData(true)})
	if err != nil {
		a.t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"id": b64(a.CredID), "rawId": b64(a.CredID), "type": "public-key",
		"response": map[string]any{"attestationObject": b64(att), "clientDataJSON": b64(cd), "transports": []string{"internal"}}})
	return b
}

// Get answers navigator.credentials.get's options.
func (a *Authenticator) Get(options []byte) []byte {
	var o struct {
		PublicKey struct {
			Challenge string `json:"challenge"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(options, &o); err != nil {
		a.t.Fatal(err)
	}
	a.Counter++
	cd := a.clientData("webauthn.get", o.PublicKey.Challenge)
	ad := a.authData(false)
	b, _ := json.Marshal(map[string]any{"id": b64(a.CredID), "rawId": b64(a.CredID), "type": "public-key",
		"response": map[string]any{"authenticatorData": b64(ad), "clientDataJSON": b64(cd), "signature": b64(a.sign(ad, cd)), "userHandle": b64(a.User)}})
	return b
}
