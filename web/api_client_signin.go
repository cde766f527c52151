package web

import (
	"context"
	"errors"
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
	return SignInWithCode(ctx, baseURL, email, password, timeout, nil)
}

// SignInWithCode is SignIn for an account that may have a second factor:
// when the sign-in answers with a challenge, askCode is asked for a code
// from the authenticator app or a recovery code (methods: "totp",
// "recovery"), which goes with the challenge to POST
// /api/auth/second-factor; a wrong code asks again, up to 3 times. A nil
// askCode refuses such an account.
func SignInWithCode(ctx context.Context, baseURL, email, password string, timeout time.Duration, askCode func(methods []string) (string, error)) (*APIClient, error) {
	c := NewAPIClient(baseURL, "", timeout)
	c.t.head = nil
	req := signInRequest{Email: strings.TrimSpace(email), Password: password}
	var out signInReply
	if err := withProof(ctx, c, req.Email, func(p *proofJSON) error {
		req.Proof = p
		return c.t.do(ctx, "POST", "/api/auth/signin", req, &out)
	}); err != nil {
		return nil, err
	}
	if sf := out.SecondFactor; sf != nil {
		if askCode == nil {
			return nil, errors.New("this account asks for a code from an authenticator app")
		}
		var err error
		for range 3 {
			var code string
			if code, err = askCode(sf.Methods); err != nil {
				return nil, err
			}
			sreq := secondFactorRequest{Token: sf.Token, Code: code}
			err = withProof(ctx, c, req.Email, func(p *proofJSON) error {
				sreq.Proof = p
				return c.t.do(ctx, "POST", "/api/auth/second-factor", sreq, &out)
			})
			if core.ErrorCode(err) != core.EWrongCredentials {
				break
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return NewAPIClient(baseURL, out.IDToken, timeout), nil
}

// signInReply is a sign-in's reply: a session's tokens, or a second
// factor's challenge.
type signInReply struct {
	TokensJSON
	SecondFactor *SecondFactorChallengeJSON `json:"secondFactor"`
}

// withProof calls send without a proof and, when the account under attack
// answers auth/proof-required, asks for a puzzle (POST
// /api/auth/challenge), solves it as the web app does and calls send again
// with the proof.
func withProof(ctx context.Context, c *APIClient, email string, send func(*proofJSON) error) error {
	err := send(nil)
	if core.ErrorCode(err) != core.EProofRequired {
		return err
	}
	var ch challengeJSON
	if err := c.t.do(ctx, "POST", "/api/auth/challenge", emailRequest{Email: email}, &ch); err != nil {
		return err
	}
	nonce, err := core.SolveProof(ctx, ch.Challenge, ch.Difficulty)
	if err != nil {
		return fmt.Errorf("solving the sign-in puzzle: %w", err)
	}
	return send(&proofJSON{Challenge: ch.Challenge, Nonce: nonce})
}
