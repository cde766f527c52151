package bolt

import (
	"encoding/binary"

	"github.com/sendlater/sendlater/core"
	"go.etcd.io/bbolt"
)

// Buckets. Index keys are built in keys.go; index values are empty unless
// noted.
var (
	bucketMeta = []byte("meta") // schema version, key check

	bucketUsers        = []byte("users")          // id -> userRecord
	bucketUsersByEmail = []byte("users_by_email") // core.EmailKey(email) -> id

	bucketMessages          = []byte("messages")            // id -> messageRecord
	bucketMessagesByOwner   = []byte("messages_by_owner")   // ownerPrefix|newestFirst(createdAt)|id
	bucketMessagesByCreated = []byte("messages_by_created") // newestFirst(createdAt)|id
	bucketDue               = []byte("messages_due")        // time(DueAt)|id
	bucketRemind            = []byte("messages_remind")     // time(RemindAt)|id
	// ownerPrefix|idempotency key|"|"|id (schema version 8)
	bucketMessagesByIdempotency = []byte("messages_by_idempotency")

	bucketSessions          = []byte("sessions")            // id -> sessionRecord
	bucketSessionsByRefresh = []byte("sessions_by_refresh") // refresh hash (current or rotated) -> session id
	bucketSessionsByUser    = []byte("sessions_by_user")    // userPrefix|id
	bucketSessionsByExpiry  = []byte("sessions_by_expiry")  // time(ExpiresAt)|id

	bucketTokens       = []byte("tokens")         // id -> tokenRecord
	bucketTokensByHash = []byte("tokens_by_hash") // hash -> token id
	bucketTokensByUser = []byte("tokens_by_user") // userPrefix|id

	bucketActionCodes         = []byte("action_codes")           // hash -> actionCodeRecord
	bucketActionCodesByExpiry = []byte("action_codes_by_expiry") // time(ExpiresAt)|hash

	bucketContacts = []byte("contacts") // time(CreatedAt)|id -> contactRecord
)

var (
	metaVersion  = []byte("version")   // uint64 big-endian: how many migrations ran
	metaKeyCheck = []byte("key_check") // keyCheckPlaintext sealed with the store's key
)

// A migration moves the schema one version up. migrations[i] takes a store
// from version i to i+1; they run in order inside the opening transaction,
// with the store's sealer at hand. Append only: a released migration never
// changes.
type migration func(s *DB, tx *bbolt.Tx) error

// schemaOnly is a migration that needs no sealer.
func schemaOnly(fn func(tx *bbolt.Tx) error) migration {
	return func(_ *DB, tx *bbolt.Tx) error { return fn(tx) }
}

var migrations = []migration{
	schemaOnly(createBuckets),
	schemaOnly(createDeliveryBuckets), // delivery.go
	schemaOnly(indexSessionExpiry),    // sessions.go
	schemaOnly(createBillingBuckets),  // billing.go
	schemaOnly(createLinkBuckets),     // links.go
	schemaOnly(createOutboxBuckets),   // outbox.go
	(*DB).sealPersonalData,            // records.go
	schemaOnly(createIdempotencyIndex),
	schemaOnly(createEventBucket),       // events.go
	schemaOnly(createPageViewBucket),    // pageviews.go
	schemaOnly(createAuditBucket),       // audit.go
	schemaOnly(createDraftBucket),       // drafts.go
	schemaOnly(createDeviceBooks),       // devices.go
	schemaOnly(createPasskeyBuckets),    // passkeys.go
	schemaOnly(createDeviceCodeBuckets), // devicecodes.go
	schemaOnly(createSuppressionBucket), // suppressions.go
	schemaOnly(createBlobBuckets),       // blobs.go
	schemaOnly(createAttachmentBuckets), // attachments.go
	(*DB).createBounceMarks,             // bounces.go
}

// createIdempotencyIndex is version 8: the messages made with an
// Idempotency-Key, by owner and key.
func createIdempotencyIndex(tx *bbolt.Tx) error {
	_, err := tx.CreateBucketIfNotExists(bucketMessagesByIdempotency)
	return err
}

// createBuckets is version 1.
func createBuckets(tx *bbolt.Tx) error {
	for _, name := range [][]byte{
		bucketUsers, bucketUsersByEmail,
		bucketMessages, bucketMessagesByOwner, bucketMessagesByCreated, bucketDue, bucketRemind,
		bucketSessions, bucketSessionsByRefresh, bucketSessionsByUser,
		bucketTokens, bucketTokensByHash, bucketTokensByUser,
		bucketActionCodes, bucketActionCodesByExpiry,
		bucketContacts,
	} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// migrate creates a new store or brings an existing one up to the version
// this binary knows, and verifies the key. It reads only the meta bucket, so
// opening costs the same whatever the store holds.
func (s *DB) migrate(tx *bbolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		if err := s.createMeta(tx); err != nil {
			return err
		}
		meta = tx.Bucket(bucketMeta)
	}
	version, err := s.verifyMeta(meta)
	if err != nil {
		return err
	}
	for v := version; v < uint64(len(migrations)); v++ {
		if err := migrations[v](s, tx); err != nil {
			return core.Errorf(core.EInternal, "Migrating the store to version %d failed: %v", v+1, err)
		}
	}
	if version < uint64(len(migrations)) {
		return meta.Put(metaVersion, binary.BigEndian.AppendUint64(nil, uint64(len(migrations))))
	}
	return nil
}

// checkSchema is migrate for a read-only store: it can only refuse.
func (s *DB) checkSchema(tx *bbolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return core.Errorf(core.EInvalid, "The file %s is not a Sendlater store.", tx.DB().Path())
	}
	version, err := s.verifyMeta(meta)
	if err != nil {
		return err
	}
	if version < uint64(len(migrations)) {
		return core.Errorf(core.EUnavailable,
			"The store %s has schema version %d and needs migrating to %d: open it once read-write.",
			tx.DB().Path(), version, len(migrations))
	}
	return nil
}

// createMeta starts a store in an empty file: version 0 and the key check.
// A file that holds other buckets is someone else's.
func (s *DB) createMeta(tx *bbolt.Tx) error {
	if c := tx.Cursor(); c != nil {
		if k, _ := c.First(); k != nil {
			return core.Errorf(core.EInvalid, "The file %s is a bbolt file but not a Sendlater store.", tx.DB().Path())
		}
	}
	meta, err := tx.CreateBucket(bucketMeta)
	if err != nil {
		return err
	}
	if err := meta.Put(metaVersion, binary.BigEndian.AppendUint64(nil, 0)); err != nil {
		return err
	}
	return meta.Put(metaKeyCheck, s.seal.KeyCheck(metaKeyCheck))
}

// verifyMeta returns the schema version after checking that this binary
// knows it and that the key opens the key check.
func (s *DB) verifyMeta(meta *bbolt.Bucket) (uint64, error) {
	path := meta.Tx().DB().Path()
	v := meta.Get(metaVersion)
	if len(v) != 8 {
		return 0, core.Errorf(core.EInvalid, "The store %s has no readable schema version.", path)
	}
	version := binary.BigEndian.Uint64(v)
	if version > uint64(len(migrations)) {
		return 0, core.Errorf(core.EUnavailable,
			"The store %s has schema version %d, newer than this sendlater knows (%d): upgrade sendlater.",
			path, version, len(migrations))
	}
	if !s.seal.CheckKey(metaKeyCheck, meta.Get(metaKeyCheck)) {
		return 0, core.Errorf(core.EInvalid,
			"The encryption key does not match this store (%s): use the key it was created with.", path)
	}
	return version, nil
}
