package core

// The rules of a stored message that hold whatever the store: the errors
// every store returns, in one spelling, and the check a store makes before
// it writes a changed message back.

// ErrMessageNotFound is a message no store holds (or one its reader may
// not see: the same reply, so that ids cannot be probed).
func ErrMessageNotFound() error { return Errorf(EMessageNotFound, "The message could not be found.") }

// ErrMessageExists is a new message whose id is taken.
func ErrMessageExists() error { return Errorf(EConflict, "A message with this id already exists.") }

// ErrIdempotencyKeyUsed is a new message whose owner made one with its
// Idempotency-Key already.
func ErrIdempotencyKeyUsed() error {
	return Errorf(EIdempotencyKeyUsed, "A message was made with this Idempotency-Key already.")
}

// CheckUpdate is the rule of a message changed by an update of message id:
// the id cannot change.
func (m *Message) CheckUpdate(id string) error {
	if m.ID != id {
		return Errorf(EInvalid, "A message's id cannot change.")
	}
	return nil
}
