package core

import (
	"sync"
	"sync/atomic"
	"time"
)

// verifiedTokens remembers the ID tokens whose signature checked out, with
// their claims, so a client's next requests with the same token skip the
// HMAC, base64 and JSON of VerifyIDToken (a tenth of a quick read's CPU).
// A signature never stops being valid, so nothing here can go stale; the
// expiry is still checked at every use, and whether the session still
// holds (sign-out, password change, refresh reuse, a disabled user) is
// still asked on every request: of the store, or of what the token's
// session was under its user's generation (sessionSeen). It holds at most
// verifiedTokensMax tokens; when full, a random quarter goes.
type verifiedTokens struct {
	mu sync.RWMutex
	m  map[string]*verifiedToken
}

// verifiedToken is a token's claims and what Authenticate last found of
// its session (nil: nothing yet).
type verifiedToken struct {
	claims IDTokenClaims
	seen   atomic.Pointer[sessionSeen]
}

// sessionSeen is what Authenticate needs of a token's session, as it was
// found (checkSessionAt) under gen, its user's generation read before the
// store: it holds while the generation has not moved, as the session
// checkSession keeps does (every write of the user's sessions moves it).
// Kept beside the token, it spares a request the second look-up (the
// session by its id) and two copies of the whole session (issue 35).
type sessionSeen struct {
	gen                        uint64
	authTime, lastUsed, expiry time.Time
}

const verifiedTokensMax = 8192

func (v *verifiedTokens) get(token string) (*verifiedToken, bool) {
	v.mu.RLock()
	t, ok := v.m[token]
	v.mu.RUnlock()
	return t, ok
}

func (v *verifiedTokens) put(token string, t *verifiedToken) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = make(map[string]*verifiedToken)
	}
	MakeRoom(v.m, verifiedTokensMax)
	v.m[token] = t
}

// verifyIDToken is VerifyIDToken under a's key, remembered per token.
func (a *Auth) verifyIDToken(token string, now time.Time) (*verifiedToken, error) {
	if t, ok := a.verified.get(token); ok {
		if now.Unix() >= t.claims.ExpiresAt {
			return nil, errInvalidToken()
		}
		return t, nil
	}
	c, err := VerifyIDToken(a.SigningKey, token, now)
	if err != nil {
		return nil, err
	}
	t := &verifiedToken{claims: *c}
	a.verified.put(token, t)
	return t, nil
}
