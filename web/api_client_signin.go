package web

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sendlater/sendlater/core"
)

// SignIn signs in at the API at baseURL with an email and a password
// (POST /api/auth/signin) and returns a client acting with the new
// session's ID token: what `sendlater login` uses to make its personal
// access token, then signs out. An account under attack answers
// auth/proof-required: SignIn then asks for a puzzle (POST
// /api/auth/challenge), solves it as the web app does, and signs in again
// with the proof, so its owner is never refused (docs/identity.md).
func SignIn(ctx context.Context, baseURL, email, password string, timeout time.Duration) (*APIClient, error) {
	c := NewAPIClient(baseURL, "", timeout)
	c.t.head = nil
	req := signInRequest{Email: strings.TrimSpace(email), Password: password}
	var out TokensJSON
	err := c.t.do(ctx, "POST", "/api/auth/signin", req, &out)
	if core.ErrorCode(err) == core.EProofRequired {
		var ch challengeJSON
		if err := c.t.do(ctx, "POST", "/api/auth/challenge", emailRequest{Email: req.Email}, &ch); err != nil {
			return nil, err
		}
		nonce, err := core.SolveProof(ctx, ch.Challenge, ch.Difficulty)
		if err != nil {
			return nil, fmt.Errorf("solving the sign-in puzzle: %w", err)
		}
		req.Proof = &proofJSON{Challenge: ch.Challenge, Nonce: nonce}
		if err := c.t.do(ctx, "POST", "/api/auth/signin", req, &out); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	return NewAPIClient(baseURL, out.IDToken, timeout), nil
}
