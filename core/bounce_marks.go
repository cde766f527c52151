package core

import "context"

// BounceMark is one recipient's bounce state, kept beside its message as a
// small record of its own, under the message and the address's keyed hash
// (any case): a bounce is one small write that never rewrites (nor
// reseals) the message, nor waits for a delivery writing it. Readers that
// show marks (the dashboard's list, the TUI, the timeline, the reminder's
// list of bouncing recipients) join them in (JoinBounceMarks). A mark goes
// with its message; the stores drop the marks of addresses an edit removed
// from the message, so editing an address clears its mark.
type BounceMark struct {
	MessageID string
	Address   string // the recipient's address; sealed at rest
	// Bounce is the last hard bounce (At zero: none), its Status and
	// Reason sealed at rest.
	Bounce      RecipientBounce
	SoftBounces int
}

// BounceWrite is what a bounce report writes beside message: the mark of
// Address and the timeline's event, with the author's email.
type BounceWrite struct {
	Address string
	// Hard replaces the address's last hard bounce.
	Hard *RecipientBounce
	// Soft counts one soft bounce.
	Soft   bool
	Event  *MessageEvent // appended to the message's timeline; MessageID is set by the store
	Outbox []*OutboxItem
}

// BounceMarkStore keeps the marks.
type BounceMarkStore interface {
	// RecordBounce reads message id and writes what fn returns (nil:
	// nothing) in one small transaction: the mark, the event and the
	// outbox items; the message's record is not written.
	// EMessageNotFound when the message is gone. fn may run more than once.
	// m's title, body and last error may be empty (a store need not read
	// them): fn checks the recipients and the owner.
	RecordBounce(ctx context.Context, id string, fn func(m *Message) (*BounceWrite, error)) error
	// ListBounceMarks returns the marks kept beside the messages ids, in
	// no particular order.
	ListBounceMarks(ctx context.Context, ids []string) ([]*BounceMark, error)
}

// JoinBounceMarks sets the bounce state of the recipients of ms from the
// marks kept beside them; a recipient without one is not bouncing.
func JoinBounceMarks(ctx context.Context, st BounceMarkStore, ms ...*Message) error {
	if len(ms) == 0 {
		return nil
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	marks, err := st.ListBounceMarks(ctx, ids)
	if err != nil || len(marks) == 0 {
		return err
	}
	by := make(map[string][]*BounceMark, len(marks))
	for _, k := range marks {
		by[k.MessageID] = append(by[k.MessageID], k)
	}
	for _, m := range ms {
		list := by[m.ID]
		if len(list) == 0 {
			continue
		}
		rs := m.editRecipients()
		for i := range rs {
			rs[i].Bounce, rs[i].SoftBounces = RecipientBounce{}, 0
			for _, k := range list {
				if EmailKey(k.Address) == EmailKey(rs[i].Address) {
					rs[i].Bounce, rs[i].SoftBounces = k.Bounce, k.SoftBounces
					break
				}
			}
		}
	}
	return nil
}

// ApplyBounceWrite is the mark w leaves on old (nil: none yet): the
// stores' one rule for a write.
func ApplyBounceWrite(old *BounceMark, messageID string, w *BounceWrite) *BounceMark {
	k := &BounceMark{MessageID: messageID, Address: w.Address}
	if old != nil {
		k.Bounce, k.SoftBounces = old.Bounce, old.SoftBounces
	}
	if w.Hard != nil {
		k.Bounce = *w.Hard
	}
	if w.Soft {
		k.SoftBounces++
	}
	return k
}

// Marks reports whether w changes a mark (a complaint only writes its
// event).
func (w *BounceWrite) Marks() bool { return w.Hard != nil || w.Soft }

// MarksOf is the marks held inline in ms's recipient lists by stores of
// an older schema, for the migrations that move them out.
func MarksOf(m *Message) []*BounceMark {
	var out []*BounceMark
	for _, r := range m.Recipients {
		if r.Bouncing() || r.SoftBounces > 0 {
			out = append(out, &BounceMark{MessageID: m.ID, Address: r.Address, Bounce: r.Bounce, SoftBounces: r.SoftBounces})
		}
	}
	return out
}

// StripMarks clears the marks held inline in m's recipient list; it
// reports whether there were any.
func StripMarks(m *Message) bool {
	if len(MarksOf(m)) == 0 {
		return false
	}
	rs := m.editRecipients()
	for i := range rs {
		rs[i].Bounce, rs[i].SoftBounces = RecipientBounce{}, 0
	}
	return true
}
