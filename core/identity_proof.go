package core

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Proof of work: when an account has had many failed sign-ins from
// anywhere (LimitSignInAccount), every sign-in to it must carry the answer
// to a puzzle, so that each further guess costs its sender some CPU while
// the owner, whose browser solves one puzzle, is never refused. The puzzle
// is hash-cash: find a nonce such that SHA-256(challenge ":" nonce) starts
// with ProofDifficulty zero bits. Challenges are signed, bound to the
// account's address, expire, and are used once.
const (
	ProofDifficulty = 18 // about 260,000 hashes: a second or less in a browser
	ProofTTL        = 5 * time.Minute
)

// ProofChallenge is a puzzle to solve before signing in.
type ProofChallenge struct {
	Challenge  string
	Difficulty int
	ExpiresAt  time.Time
}

// Proof is a solved puzzle, sent with a sign-in.
type Proof struct {
	Challenge string
	Nonce     string
}

func errProofRequired(msg string) error {
	return &Error{Code: EProofRequired, Message: msg}
}

func (a *Auth) proofKey() []byte { return DeriveKey(a.SigningKey, PurposeProofOfWork) }

// proofMAC signs a challenge's payload for the account of email.
func (a *Auth) proofMAC(payload, email string) string {
	mac := hmac.New(sha256.New, a.proofKey())
	mac.Write([]byte(payload))
	mac.Write([]byte{0})
	mac.Write([]byte(EmailKey(email)))
	return hex.EncodeToString(mac.Sum(nil)[:16])
}

// SignInChallenge returns a puzzle for signing in to email's account. Any
// address gets one, whether or not it has an account.
func (a *Auth) SignInChallenge(ctx context.Context, email string) (*ProofChallenge, error) {
	f := map[string]string{}
	validateEmail(f, "email", NormalizeEmail(email))
	if err := ValidationError(f); err != nil {
		return nil, err
	}
	if err := a.checkKey(); err != nil {
		return nil, err
	}
	exp := a.Clock.Now().Add(ProofTTL).Truncate(time.Second)
	payload := "v1." + strconv.FormatInt(exp.Unix(), 10) + "." + strconv.Itoa(ProofDifficulty) + "." + NewSecret()[:22]
	return &ProofChallenge{
		Challenge:  payload + "." + a.proofMAC(payload, email),
		Difficulty: ProofDifficulty,
		ExpiresAt:  exp,
	}, nil
}

// ProofSolved reports whether SHA-256(challenge ":" nonce) starts with
// difficulty zero bits.
func ProofSolved(challenge, nonce string, difficulty int) bool {
	sum := sha256.Sum256([]byte(challenge + ":" + nonce))
	zeros := 0
	for i := 0; i < len(sum); i += 8 {
		n := bits.LeadingZeros64(binary.BigEndian.Uint64(sum[i:]))
		zeros += n
		if n < 64 {
			break
		}
	}
	return zeros >= difficulty
}

// MaxSolvedDifficulty is the hardest puzzle SolveProof takes on: 6 bits
// above ProofDifficulty, about 64 times its work. A server asking for more
// is refused rather than letting a client hash for minutes.
const MaxSolvedDifficulty = ProofDifficulty + 6

// SolveProof finds a nonce that solves challenge (ProofSolved): what a
// client that is not a browser does when a sign-in answers
// auth/proof-required (web.SignIn). It stops when ctx ends.
func SolveProof(ctx context.Context, challenge string, difficulty int) (string, error) {
	if difficulty > MaxSolvedDifficulty {
		return "", Errorf(EInvalid, "The server asks for a puzzle of %d bits; this client solves up to %d.", difficulty, MaxSolvedDifficulty)
	}
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return "", ctx.Err()
		}
		if nonce := strconv.Itoa(n); ProofSolved(challenge, nonce, difficulty) {
			return nonce, nil
		}
	}
}

// checkProof verifies a solved puzzle for email's account and uses it up.
func (a *Auth) checkProof(ctx context.Context, p Proof, email string) error {
	if p.Challenge == "" {
		return errProofRequired("There were many failed sign-ins to this account: your browser must solve a short puzzle first.")
	}
	parts := strings.Split(p.Challenge, ".")
	if len(parts) != 5 || parts[0] != "v1" || len(p.Nonce) > 32 {
		return errProofRequired("The puzzle is not valid; ask for a new one.")
	}
	payload := strings.Join(parts[:4], ".")
	exp, err1 := strconv.ParseInt(parts[1], 10, 64)
	difficulty, err2 := strconv.Atoi(parts[2])
	switch {
	case err1 != nil, err2 != nil,
		!hmac.Equal([]byte(parts[4]), []byte(a.proofMAC(payload, email))):
		return errProofRequired("The puzzle is not valid; ask for a new one.")
	case !a.Clock.Now().Before(time.Unix(exp, 0)):
		return errProofRequired("The puzzle has expired; ask for a new one.")
	case difficulty < ProofDifficulty || !ProofSolved(p.Challenge, p.Nonce, difficulty):
		return errProofRequired("The puzzle is not solved; solve it and try again.")
	}
	// Used once: two sign-ins with one answer both see two events.
	if n, err := a.Limits.Record(ctx, limitProofUsed, p.Challenge); err != nil {
		return err
	} else if n > 1 {
		return errProofRequired("This puzzle was used already; ask for a new one.")
	}
	return nil
}
