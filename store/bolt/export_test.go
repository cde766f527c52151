package bolt

import (
	"slices"
	"testing"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// AppendMigration makes m the next schema version for one test.
func AppendMigration(tb testing.TB, m func(tx *bbolt.Tx) error) {
	old := migrations
	migrations = append(slices.Clip(old), schemaOnly(m))
	tb.Cleanup(func() { migrations = old })
}

// SchemaVersion is the version this binary migrates to.
func SchemaVersion() int { return len(migrations) }

// PutMessages writes new messages in one transaction, as CreateMessage does
// but without the plan check or batching: for building benchmark fixtures.
func (s *DB) PutMessages(ms []*core.Message) error {
	return s.db.Update(func(tx *bbolt.Tx) error {
		for _, m := range ms {
			if err := s.putMessage(tx, nil, m); err != nil {
				return err
			}
		}
		return nil
	})
}

// SealedField returns a sealed field ("title", "body" ...) of the stored
// message record v.
func SealedField(v []byte, field string) []byte {
	var r messageRecord
	if err := r.unmarshal(v); err != nil {
		panic(err)
	}
	return *r.sealed(field)
}

// WithSealedField returns the stored message record v with a field replaced.
func WithSealedField(v []byte, field string, sealed []byte) []byte {
	var r messageRecord
	if err := r.unmarshal(v); err != nil {
		panic(err)
	}
	*r.sealed(field) = sealed
	return r.marshal()
}

func (r *messageRecord) sealed(field string) *[]byte {
	switch field {
	case "title":
		return &r.Title
	case "name":
		return &r.Name
	case "recipient":
		return &r.Recipient
	case "body":
		return &r.Body
	case "recipients":
		return &r.Recipients
	}
	panic("no sealed field " + field)
}

// CheckMessageRecord decodes a stored message record without decrypting it.
func CheckMessageRecord(v []byte) error {
	var r messageRecord
	return r.unmarshal(v)
}
