// Package otpauth makes and checks authenticator app codes (TOTP, RFC 6238:
// SHA-1, 6 digits, 30-second steps) with github.com/pquerna/otp: the
// implementation of core.OneTimeCodes, wired in internal/wiring.
package otpauth

import (
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/sendlater/sendlater/core"
)

// Codes is core.OneTimeCodes; its zero value is ready.
type Codes struct{}

var _ core.OneTimeCodes = Codes{}

var opts = totp.ValidateOpts{Period: uint(core.TOTPPeriod / time.Second), Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// NewSecret makes a secret of 160 random bits (base32) and its otpauth://
// URI, naming the account in the app by issuer and account.
func (Codes) NewSecret(issuer, account string) (secret, uri string, err error) {
	k, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account, SecretSize: 20,
		Period: opts.Period, Digits: opts.Digits, Algorithm: opts.Algorithm})
	if err != nil {
		return "", "", err
	}
	return k.Secret(), k.URL(), nil
}

// Code is the code of secret's time step at t.
func (Codes) Code(secret string, t time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, t, opts)
}
