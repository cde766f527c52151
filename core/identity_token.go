package core

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// IDTokenClaims is what an ID token says: who, in which session, since when
// signed in, until when valid. Times are Unix seconds.
type IDTokenClaims struct {
	UserID    string `json:"uid"`
	SessionID string `json:"sid"`
	AuthTime  int64  `json:"auth_time"`
	IssuedAt  int64  `json:"iat"`
	ExpiresAt int64  `json:"exp"`
}

// idTokenPrefix names the token format, so a future format can be told apart.
const idTokenPrefix = "v1."

// MinSigningKeyLen is the shortest ID token signing key accepted (256 bits).
const MinSigningKeyLen = 32

// SignIDToken returns the compact token v1.<base64url claims>.<base64url
// HMAC-SHA256 of everything before it>.
func SignIDToken(key []byte, c IDTokenClaims) string {
	payload, _ := json.Marshal(c) // plain strings and numbers: cannot fail
	signed := idTokenPrefix + base64.RawURLEncoding.EncodeToString(payload)
	return signed + "." + base64.RawURLEncoding.EncodeToString(idTokenMAC(key, signed))
}

// VerifyIDToken checks the token's signature and expiry at now and returns
// its claims. Any failure is auth/invalid-user-token.
func VerifyIDToken(key []byte, token string, now time.Time) (*IDTokenClaims, error) {
	if !strings.HasPrefix(token, idTokenPrefix) || len(token) > 1024 {
		return nil, errInvalidToken()
	}
	dot := strings.LastIndexByte(token, '.')
	if dot <= len(idTokenPrefix) {
		return nil, errInvalidToken()
	}
	signed, sig := token[:dot], token[dot+1:]
	mac, err := base64.RawURLEncoding.Strict().DecodeString(sig)
	if err != nil || !hmac.Equal(mac, idTokenMAC(key, signed)) {
		return nil, errInvalidToken()
	}
	payload, err := base64.RawURLEncoding.Strict().DecodeString(signed[len(idTokenPrefix):])
	if err != nil {
		return nil, errInvalidToken()
	}
	var c IDTokenClaims
	if err := json.Unmarshal(payload, &c); err != nil || c.UserID == "" || c.SessionID == "" {
		return nil, errInvalidToken()
	}
	if now.Unix() >= c.ExpiresAt {
		return nil, errInvalidToken()
	}
	return &c, nil
}

func idTokenMAC(key []byte, signed string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(signed))
	return h.Sum(nil)
}

func errInvalidToken() error {
	return Errorf(EInvalidToken, "Your session has ended. Please sign in again.")
}
