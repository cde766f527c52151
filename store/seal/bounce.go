package seal

import (
	"encoding/hex"
	"encoding/json"

	"github.com/sendlater/sendlater/core"
)

// A recipient's bounce mark (issue 31) is kept under its message and its
// address's keyed hash (AddressHash), with the address, the status and the
// remote server's reason sealed as one field bound to both, so that a
// sealed mark cannot be moved to another message or address.
const fieldBounceMark = "bounceMark"

// BounceMark is a mark as a store keeps it.
type BounceMark struct {
	MessageID   string
	Hash        []byte // AddressHash of the address
	At          int64  // Unix nanoseconds of the hard bounce; 0: none
	Email       int    // core.BounceEmail
	SoftBounces int
	Sealed      []byte // address, status and reason
}

type bounceMarkRecord struct {
	V       int    `json:"v"`
	Address string `json:"address"`
	Status  string `json:"status,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

func bounceMarkField(hash []byte) string { return fieldBounceMark + "/" + hex.EncodeToString(hash) }

// SealBounceMark seals k's address, status and reason.
func (s *Sealer) SealBounceMark(k *core.BounceMark) BounceMark {
	h := s.AddressHash(k.Address)
	b, _ := json.Marshal(bounceMarkRecord{V: 1, Address: k.Address, Status: k.Bounce.Status, Reason: k.Bounce.Reason})
	return BounceMark{MessageID: k.MessageID, Hash: h, At: nanosOf(k.Bounce.At), Email: int(k.Bounce.Email),
		SoftBounces: k.SoftBounces, Sealed: s.sealField(k.MessageID, bounceMarkField(h), string(b))}
}

// OpenBounceMark opens sk.
func (s *Sealer) OpenBounceMark(sk *BounceMark) (*core.BounceMark, error) {
	pt, err := s.openField(sk.MessageID, bounceMarkField(sk.Hash), sk.Sealed)
	if err != nil {
		return nil, err
	}
	var r bounceMarkRecord
	if err := json.Unmarshal([]byte(pt), &r); err != nil || r.V != 1 {
		return nil, core.Errorf(core.EInternal, "a bounce mark of an unknown form")
	}
	return &core.BounceMark{MessageID: sk.MessageID, Address: r.Address, SoftBounces: sk.SoftBounces,
		Bounce: core.RecipientBounce{At: timeOf(sk.At), Email: core.BounceEmail(sk.Email), Status: r.Status, Reason: r.Reason}}, nil
}

// SealRecipientsWithMarks seals m's recipient list with the marks held
// inline, as stores before bbolt schema 19 and PostgreSQL migration 0027
// did: for the tests of the migrations that move them out.
func (s *Sealer) SealRecipientsWithMarks(m *core.Message) []byte {
	return s.sealField(m.ID, fieldRecipients, string(marshalRecipientsOf(m.Recipients, true)))
}
