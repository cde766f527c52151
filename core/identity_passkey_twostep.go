package core

import "context"

// CompleteSecondFactorWithPasskey ends a sign-in's second step with one of
// the account's passkeys instead of a code: token is the challenge of the
// password (or provider) sign-in, state and response a passkey sign-in
// ceremony's (BeginPasskeySignIn). Only a passkey of the challenge's user
// passes; a refusal counts against the challenge's tries and the client,
// as a wrong code does. The challenge is used once.
func (a *Auth) CompleteSecondFactorWithPasskey(ctx context.Context, token, state string, response []byte, c Client) (*Tokens, error) {
	a.init()
	f := map[string]string{}
	if token == "" {
		f["token"] = "Please sign in first"
	}
	if state == "" || len(response) == 0 {
		f["response"] = "Please use your passkey"
	}
	if err := ValidationError(f); err != nil {
		return nil, err
	}
	if err := a.passkeysOn(); err != nil {
		return nil, err
	}
	hash, ac, err := a.pendingSecondFactor(ctx, token)
	if err != nil {
		return nil, err
	}
	if err := a.checkClient(ctx, c.Address); err != nil {
		return nil, err
	}
	u, err := a.usePasskey(ctx, state, response, ac.UserID)
	if err != nil {
		if ErrorCode(err) != EWrongCredentials {
			return nil, err
		}
		if _, lerr := a.Limits.Record(ctx, limitSecondFactorTries, hash); lerr != nil {
			return nil, lerr
		}
		if lerr := a.countClient(ctx, c.Address); lerr != nil {
			return nil, lerr
		}
		return nil, err
	}
	if _, err := a.ActionCodes.UseActionCode(ctx, hash, a.Clock.Now()); err != nil {
		return nil, errInvalidChallenge()
	}
	if c.Address != "" {
		pair := EmailKey(ac.Email) + "\x00" + a.Limits.Client(c.Address)
		if err := a.Limits.Clear(ctx, LimitSignInAccountClient, pair); err != nil {
			return nil, err
		}
	}
	return a.openSession(ctx, u, c)
}
