package core

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"strings"
	"time"
)

// The second factor, managed by its owner: an authenticator app (TOTP, RFC
// 6238: SHA-1, 6 digits, 30 seconds) and recovery codes. Enrolment stores a
// pending secret; one code from the app confirms it, turns it on and gives
// the recovery codes, shown this once. Turning it off and new recovery
// codes need a recent login. The sign-in side is identity_twostep.go.
const (
	TOTPPeriod = 30 * time.Second
	// TOTPSkew is how many steps before and after now a code may be from:
	// one, so a clock 30 seconds off, or a code typed as it changes, works.
	TOTPSkew          = 1
	RecoveryCodeCount = 10
	// DefaultIssuer names the account in the authenticator app when
	// Auth.AppName is empty.
	DefaultIssuer = "Sendlater"
	totpDigits    = 6
)

// OneTimeCodes makes an authenticator app's secrets and its codes (TOTP,
// RFC 6238, TOTPPeriod steps, 6 digits); otpauth implements it.
type OneTimeCodes interface {
	// NewSecret makes a random secret (base32) and its otpauth:// URI.
	NewSecret(issuer, account string) (secret, uri string, err error)
	// Code is the code of secret's time step at t.
	Code(secret string, t time.Time) (string, error)
}

// TOTPEnrolment is a pending authenticator app: the secret to type and the
// otpauth:// URI a QR code carries.
type TOTPEnrolment struct {
	Secret string
	URI    string
}

// RecoveryCodes are the recovery codes made at enrolment or regeneration,
// in clear this once.
type RecoveryCodes struct {
	Codes []string
}

func errTOTPOn() error {
	return Errorf(EConflict, "The authenticator app is on already; turn it off first.")
}

func errTOTPOff() error {
	return Errorf(EConflict, "Turn on the authenticator app first.")
}

// accountAction checks that the identity in ctx is the user themself, with
// the account scope and a recent login: what the factors of an account
// need.
func (a *Auth) accountAction(ctx context.Context) (*Identity, error) {
	a.init()
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return nil, err
	}
	if id.Operator != "" {
		return nil, errOperator()
	}
	if err := a.RequireRecentLogin(ctx); err != nil {
		return nil, err
	}
	return id, nil
}

// Issuer is the name of the site in authenticator apps and passkey
// prompts: AppName, or DefaultIssuer.
func (a *Auth) Issuer() string {
	if a.AppName != "" {
		return a.AppName
	}
	return DefaultIssuer
}

// BeginTOTP makes a new pending secret for the user of ctx (recent login),
// replacing one not confirmed yet. It counts only once confirmed.
func (a *Auth) BeginTOTP(ctx context.Context) (*TOTPEnrolment, error) {
	id, err := a.accountAction(ctx)
	if err != nil {
		return nil, err
	}
	if a.OTP == nil {
		return nil, Errorf(EUnavailable, "Authenticator apps are not configured in this process.")
	}
	var en TOTPEnrolment
	_, err = a.Users.UpdateUser(ctx, id.UserID, func(u *User) error {
		if u.HasSecondFactor() {
			return errTOTPOn()
		}
		secret, uri, err := a.OTP.NewSecret(a.Issuer(), u.Email)
		if err != nil {
			return err
		}
		en = TOTPEnrolment{Secret: secret, URI: uri}
		u.TOTPSecret, u.TOTPLastStep = secret, 0
		u.UpdatedAt = a.Clock.Now()
		return nil
	})
	if err != nil {
		return nil, tokenError(err)
	}
	return &en, nil
}

// ConfirmTOTP turns the pending secret on with one code from the app and
// returns the recovery codes, which are never shown again. A wrong code
// changes nothing.
func (a *Auth) ConfirmTOTP(ctx context.Context, code string) (*RecoveryCodes, error) {
	id, err := a.accountAction(ctx)
	if err != nil {
		return nil, err
	}
	code = normalizeTOTP(code)
	if code == "" {
		return nil, ValidationError(map[string]string{"code": "Please enter the 6-digit code from your app"})
	}
	now := a.Clock.Now()
	codes, hashes := a.newRecoveryCodes(id.UserID)
	_, err = a.Users.UpdateUser(ctx, id.UserID, func(u *User) error {
		switch {
		case u.HasSecondFactor():
			return errTOTPOn()
		case u.TOTPSecret == "":
			return Errorf(EConflict, "Start again: no authenticator app is being set up.")
		}
		step, ok := a.matchTOTP(u.TOTPSecret, code, now, 0)
		if !ok {
			return ValidationError(map[string]string{"code": "The code is not right; check the app and try again"})
		}
		u.TOTPEnabledAt, u.TOTPLastStep, u.RecoveryCodes = now, step, hashes
		u.UpdatedAt = now
		return nil
	})
	if err != nil {
		return nil, tokenError(err)
	}
	a.securityNotice(ctx, id.UserID, SecurityTOTPOn, 0)
	return &RecoveryCodes{Codes: codes}, nil
}

// DisableTOTP turns the second factor off (recent login): the secret and
// the recovery codes go.
func (a *Auth) DisableTOTP(ctx context.Context) error {
	id, err := a.accountAction(ctx)
	if err != nil {
		return err
	}
	was := false
	_, err = a.Users.UpdateUser(ctx, id.UserID, func(u *User) error {
		was = u.HasSecondFactor()
		clearSecondFactor(u)
		u.UpdatedAt = a.Clock.Now()
		return nil
	})
	if err != nil {
		return tokenError(err)
	}
	if was {
		a.securityNotice(ctx, id.UserID, SecurityTOTPOff, 0)
	}
	return nil
}

// RegenerateRecoveryCodes makes 10 new recovery codes (recent login); the
// old ones stop working.
func (a *Auth) RegenerateRecoveryCodes(ctx context.Context) (*RecoveryCodes, error) {
	id, err := a.accountAction(ctx)
	if err != nil {
		return nil, err
	}
	codes, hashes := a.newRecoveryCodes(id.UserID)
	_, err = a.Users.UpdateUser(ctx, id.UserID, func(u *User) error {
		if !u.HasSecondFactor() {
			return errTOTPOff()
		}
		u.RecoveryCodes, u.UpdatedAt = hashes, a.Clock.Now()
		return nil
	})
	if err != nil {
		return nil, tokenError(err)
	}
	return &RecoveryCodes{Codes: codes}, nil
}

// clearSecondFactor removes u's authenticator app and recovery codes.
func clearSecondFactor(u *User) {
	u.TOTPSecret, u.TOTPEnabledAt, u.TOTPLastStep, u.RecoveryCodes = "", time.Time{}, 0, nil
}

// normalizeTOTP is a typed code without spaces; "" when it is not 6 digits.
func normalizeTOTP(code string) string {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != totpDigits {
		return ""
	}
	for _, r := range code {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return code
}

// matchTOTP finds the time step within TOTPSkew of now whose code is code
// and that is after last (a step already used never matches again).
func (a *Auth) matchTOTP(secret, code string, now time.Time, last int64) (int64, bool) {
	if a.OTP == nil {
		return 0, false
	}
	period := int64(TOTPPeriod / time.Second)
	found, step := false, int64(0)
	for d := -TOTPSkew; d <= TOTPSkew; d++ {
		t := now.Add(time.Duration(d) * TOTPPeriod)
		s := t.Unix() / period
		want, err := a.OTP.Code(secret, t)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && s > last && !found {
			found, step = true, s
		}
	}
	return step, found
}

var recoveryEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newRecoveryCodes makes RecoveryCodeCount codes of 120 random bits, as
// six groups of four ("xxxx-xxxx-xxxx-xxxx-xxxx-xxxx"), and their hashes
// (bound to the user).
func (a *Auth) newRecoveryCodes(userID string) (codes, hashes []string) {
	for range RecoveryCodeCount {
		b := make([]byte, 15)
		rand.Read(b)
		s := recoveryEncoding.EncodeToString(b)
		groups := make([]string, 0, 6)
		for i := 0; i < len(s); i += 4 {
			groups = append(groups, s[i:i+4])
		}
		c := strings.Join(groups, "-")
		codes = append(codes, c)
		hashes = append(hashes, recoveryHash(userID, c))
	}
	return codes, hashes
}

// recoveryHash is the stored form of a recovery code: codes carry 120
// random bits (at least 112, OWASP ASVS 5.0 6.5.2), so a fast hash is
// enough; the user's id keeps one account's hashes from matching
// another's. Codes made before (80 bits) still match until used.
func recoveryHash(userID, code string) string {
	return HashSecret("recovery\x00" + userID + "\x00" + normalizeRecovery(code))
}

// normalizeRecovery is a typed recovery code in lower case without spaces
// or dashes.
func normalizeRecovery(code string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '\t':
			return -1
		}
		return r
	}, strings.ToLower(code))
}
