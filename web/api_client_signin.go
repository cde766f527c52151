package web

import (
	"context"
	"strings"
	"time"
)

// SignIn signs in at the API at baseURL with an email and a password
// (POST /api/auth/signin) and returns a client acting with the new
// session's ID token: what `sendlater login` uses to make its personal
// access token, then signs out. An account under attack answers
// auth/proof-required, which this client does not solve: sign in from the
// web app then.
func SignIn(ctx context.Context, baseURL, email, password string, timeout time.Duration) (*APIClient, error) {
	c := NewAPIClient(baseURL, "", timeout)
	c.t.head = nil
	var out TokensJSON
	if err := c.t.do(ctx, "POST", "/api/auth/signin", signInRequest{Email: strings.TrimSpace(email), Password: password}, &out); err != nil {
		return nil, err
	}
	return NewAPIClient(baseURL, out.IDToken, timeout), nil
}
