package core

import (
	"sync"
	"time"
)

// verifiedTokens remembers the ID tokens whose signature checked out, with
// their claims, so a client's next requests with the same token skip the
// HMAC, base64 and JSON of VerifyIDToken (a tenth of a quick read's CPU).
// A signature never stops being valid, so nothing here can go stale; the
// expiry is still checked at every use, and whether the session still
// holds (sign-out, password change, refresh reuse, a disabled user) is
// still asked of the store on every request (checkSession). It holds at
// most verifiedTokensMax tokens; when full, a random quarter goes.
type verifiedTokens struct {
	mu sync.RWMutex
	m  map[string]IDTokenClaims
}

const verifiedTokensMax = 8192

func (v *verifiedTokens) get(token string) (IDTokenClaims, bool) {
	v.mu.RLock()
	c, ok := v.m[token]
	v.mu.RUnlock()
	return c, ok
}

func (v *verifiedTokens) put(token string, c IDTokenClaims) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = make(map[string]IDTokenClaims)
	}
	MakeRoom(v.m, verifiedTokensMax)
	v.m[token] = c
}

// verifyIDToken is VerifyIDToken under a's key, remembered per token.
func (a *Auth) verifyIDToken(token string, now time.Time) (IDTokenClaims, error) {
	if c, ok := a.verified.get(token); ok {
		if now.Unix() >= c.ExpiresAt {
			return IDTokenClaims{}, errInvalidToken()
		}
		return c, nil
	}
	c, err := VerifyIDToken(a.SigningKey, token, now)
	if err != nil {
		return IDTokenClaims{}, err
	}
	a.verified.put(token, *c)
	return *c, nil
}
