package core

import (
	"crypto/hmac"
	"crypto/sha256"
)

// Purposes of the keys derived from the master key (the store's encryption
// key). A purpose never changes once released: stores, signed tokens and
// emailed links depend on the keys derived from it.
const (
	PurposeIDTokens     = "sendlater id tokens"     // signs ID tokens
	PurposeStoreHashes  = "sendlater store hashes"  // keys the stored hashes of refused addresses
	PurposeRefusalLinks = "sendlater refusal links" // the secret of RefusalTokens
	PurposeOAuthState   = "sendlater oauth state"   // signs the social sign-in state cookie
	PurposeLimitKeys    = "sendlater limit keys"    // keys the hashes under which limits count
	PurposeProofOfWork  = "sendlater proof of work" // signs the sign-in puzzles of ProofOfWork
	PurposeRefreshChain = "sendlater refresh chain" // derives a refresh token's successor
	PurposeKnownDevices = "sendlater known devices" // keys the hashes of the devices an account signed in from
	PurposeDeviceCodes  = "sendlater device codes"  // keys the stored hashes of the device flow's user codes
)

// DeriveKey derives the 32-byte key of one purpose from master:
// HMAC-SHA256(master, purpose). Keys of different purposes are independent,
// so one secret in config serves them all without being reused.
func DeriveKey(master []byte, purpose string) []byte {
	mac := hmac.New(sha256.New, master)
	mac.Write([]byte(purpose))
	return mac.Sum(nil)
}
