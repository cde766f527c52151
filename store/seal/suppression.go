package seal

import (
	"encoding/hex"

	"github.com/sendlater/sendlater/core"
)

// A suppression (issue 31) is kept under its address's keyed hash
// (AddressHash), with its address and reason sealed and bound to that
// hash, so that a sealed address cannot be moved under another's key.
const (
	fieldSuppressionAddress = "suppressionAddress"
	fieldSuppressionReason  = "suppressionReason"
)

// Suppression is a suppression as a store keeps it.
type Suppression struct {
	Hash            []byte
	At              int64 // Unix nanoseconds
	Address, Reason []byte
}

// SealSuppression seals sp's address and reason.
func (s *Sealer) SealSuppression(sp *core.Suppression) Suppression {
	h := s.AddressHash(sp.Address)
	id := hex.EncodeToString(h)
	return Suppression{Hash: h, At: nanosOf(sp.At),
		Address: s.sealField(id, fieldSuppressionAddress, core.EmailKey(sp.Address)),
		Reason:  s.sealField(id, fieldSuppressionReason, sp.Reason)}
}

// OpenSuppression opens ss.
func (s *Sealer) OpenSuppression(ss *Suppression) (*core.Suppression, error) {
	id := hex.EncodeToString(ss.Hash)
	addr, err := s.openField(id, fieldSuppressionAddress, ss.Address)
	if err != nil {
		return nil, err
	}
	reason, err := s.openField(id, fieldSuppressionReason, ss.Reason)
	if err != nil {
		return nil, err
	}
	return &core.Suppression{Address: addr, At: timeOf(ss.At), Reason: reason}, nil
}
