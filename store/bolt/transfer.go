package bolt

import (
	"bytes"
	"context"
	"fmt"

	"github.com/sendlater/sendlater/store/seal"
	"github.com/sendlater/sendlater/store/transfer"
	"go.etcd.io/bbolt"
)

var _ transfer.Store = (*DB)(nil)

// KeyID names the store's key without revealing it (seal.Sealer.KeyID).
func (s *DB) KeyID() string { return s.seal.KeyID() }

// Counts counts the records of each kind.
func (s *DB) Counts(ctx context.Context) (transfer.Counts, error) {
	var c transfer.Counts
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		n := func(bucket []byte) int { return tx.Bucket(bucket).Stats().KeyN }
		c = transfer.Counts{
			Users: n(bucketUsers), Messages: n(bucketMessages), Sessions: n(bucketSessions),
			AccessTokens: n(bucketTokens), ActionCodes: n(bucketActionCodes), Contacts: n(bucketContacts),
			Refusals: n(bucketRefusals), Outbox: n(bucketWebhooks), WebhookSecrets: n(bucketWebhookSecrets),
			ProviderLinks: n(bucketLinks), BillingEvents: n(bucketBillingEvents), Events: n(bucketEvents),
			Audit: n(bucketAudit), PageViews: n(bucketPageViews), Drafts: n(bucketDrafts), Passkeys: n(bucketPasskeys),
			DeviceBooks: n(bucketDeviceBooks), Suppressions: n(bucketSuppressions), Files: n(bucketBlobs),
			Attachments: n(bucketAttachments), BounceMarks: n(bucketBounceMarks),
		}
		return nil
	})
	return c, err
}

// Export yields every record from one read transaction, bucket by bucket in
// key order, sealed fields copied out of the file unopened.
func (s *DB) Export(ctx context.Context, n int, fn func(r *transfer.Records) error) error {
	return s.view(ctx, func(tx *bbolt.Tx) error {
		var r transfer.Records
		size := 0
		flush := func() error {
			if size == 0 {
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			err := fn(&r)
			r, size = transfer.Records{}, 0
			return err
		}
		each := func(bucket []byte, add func(k, v []byte) error) error {
			c := tx.Bucket(bucket).Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if err := add(k, v); err != nil {
					return err
				}
				if size++; size >= n {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			return flush()
		}
		kinds := []struct {
			bucket []byte
			add    func(k, v []byte) error
		}{
			{bucketUsers, func(_, v []byte) error {
				rec, err := decodeUserRecord(v)
				if err != nil {
					return err
				}
				su := rec.sealedUser()
				r.Users = append(r.Users, &su)
				return nil
			}},
			{bucketMessages, func(k, v []byte) error {
				var rec messageRecord
				if err := rec.unmarshal(v); err != nil {
					return err
				}
				sm := rec.sealedMessage(string(k))
				for _, b := range []*[]byte{&sm.Title, &sm.Name, &sm.Recipient, &sm.Body, &sm.LastError, &sm.Recipients} {
					*b = bytes.Clone(*b) // out of the mmap
				}
				r.Messages = append(r.Messages, &sm)
				return nil
			}},
			{bucketSessions, func(_, v []byte) error {
				x, err := decodeSession(v)
				r.Sessions = append(r.Sessions, x)
				return err
			}},
			{bucketTokens, func(_, v []byte) error {
				t, err := decodeToken(v)
				r.AccessTokens = append(r.AccessTokens, t)
				return err
			}},
			{bucketActionCodes, func(_, v []byte) error {
				c, err := decodeActionCode(v)
				r.ActionCodes = append(r.ActionCodes, c)
				return err
			}},
			{bucketContacts, func(_, v []byte) error {
				rec, err := decodeContactRecord(v)
				if err != nil {
					return err
				}
				sc := rec.sealedContact()
				r.Contacts = append(r.Contacts, &sc)
				return nil
			}},
			{bucketRefusals, func(k, v []byte) error {
				var rec refusalRecord
				err := decode("refusal", v, &rec)
				r.Refusals = append(r.Refusals, &transfer.Refusal{Hash: bytes.Clone(k), At: fromUnixNano(rec.At)})
				return err
			}},
			{bucketSuppressions, func(k, v []byte) error {
				var rec suppressionRecord
				err := decode("suppression", v, &rec)
				r.Suppressions = append(r.Suppressions, &seal.Suppression{Hash: bytes.Clone(k), At: rec.At,
					Address: rec.Address, Reason: rec.Reason})
				return err
			}},
			{bucketWebhooks, func(_, v []byte) error {
				rec, err := decodeOutboxRecord(v)
				if err != nil {
					return err
				}
				si := rec.sealedItem()
				r.Outbox = append(r.Outbox, &si)
				return nil
			}},
			{bucketEvents, func(k, v []byte) error {
				se, err := decodeEvent(k, v)
				r.Events = append(r.Events, se)
				return err
			}},
			{bucketBounceMarks, func(k, v []byte) error {
				sk, err := decodeBounceMark(k, v)
				r.BounceMarks = append(r.BounceMarks, sk)
				return err
			}},
			{bucketWebhookSecrets, func(k, v []byte) error {
				r.WebhookSecrets = append(r.WebhookSecrets, &transfer.WebhookSecret{UserID: string(k), Secret: bytes.Clone(v)})
				return nil
			}},
			{bucketLinks, func(k, _ []byte) error {
				l, err := findLink(tx, k)
				r.ProviderLinks = append(r.ProviderLinks, l)
				return err
			}},
			{bucketBillingEvents, func(k, v []byte) error {
				r.BillingEvents = append(r.BillingEvents, &transfer.BillingEvent{ID: string(k), At: timeAt(v)})
				return nil
			}},
			{bucketAudit, func(_, v []byte) error {
				e, err := decodeAudit(v)
				r.Audit = append(r.Audit, e)
				return err
			}},
			{bucketPageViews, func(k, v []byte) error {
				pc, ok := pageViewCount(k, v)
				if !ok {
					// Counted, so not to be skipped: the copy would be short.
					return fmt.Errorf("decode page-view counter %q: not a day, a path and 8 bytes of views", k)
				}
				r.PageViews = append(r.PageViews, &pc)
				return nil
			}},
			{bucketDrafts, func(k, v []byte) error {
				d, err := exportDraft(k, v)
				r.Drafts = append(r.Drafts, d)
				return err
			}},
			{bucketPasskeys, func(_, v []byte) error {
				p, err := decodePasskey(v)
				r.Passkeys = append(r.Passkeys, p)
				return err
			}},
			{bucketDeviceBooks, func(k, v []byte) error {
				b, err := decodeDeviceBook(string(k), v)
				r.DeviceBooks = append(r.DeviceBooks, b)
				return err
			}},
			{bucketAttachments, func(k, v []byte) error {
				a, err := exportAttachment(string(k), v)
				r.Attachments = append(r.Attachments, a)
				return err
			}},
		}
		for _, kind := range kinds {
			if err := each(kind.bucket, kind.add); err != nil {
				return err
			}
		}
		return nil
	})
}

// SiteCounts counts users and messages only, for the home page's live
// statistics (web.SiteCounts): two buckets, not every kind Counts reads.
func (s *DB) SiteCounts(ctx context.Context) (users, messages int, err error) {
	err = s.view(ctx, func(tx *bbolt.Tx) error {
		users, messages = tx.Bucket(bucketUsers).Stats().KeyN, tx.Bucket(bucketMessages).Stats().KeyN
		return nil
	})
	return users, messages, err
}
