package bolt

import (
	"bytes"
	"context"
	"encoding/binary"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/store/transfer"
	"go.etcd.io/bbolt"
)

// Import writes the records in one write transaction, each with its index
// entries, leaving alone a record whose stored bytes are already the ones it
// would write.
func (s *DB) Import(ctx context.Context, r *transfer.Records) (int, error) {
	changed := 0
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		changed = 0
		// put writes v under key in bucket unless it is there already, and
		// then calls write with what was stored before (nil: nothing).
		put := func(bucket, key, v []byte, write func(old []byte) error) error {
			old := tx.Bucket(bucket).Get(key)
			if bytes.Equal(old, v) {
				return nil
			}
			changed++
			return write(old)
		}
		for _, su := range r.Users {
			u := &su.Plain
			if err := core.ValidID("user", u.ID); err != nil {
				return err
			}
			v, err := encode(userRecordOf(su))
			if err != nil {
				return err
			}
			err = put(bucketUsers, []byte(u.ID), v, func(old []byte) error {
				was := &userRecord{}
				if old != nil {
					if was, err = decodeUserRecord(old); err != nil {
						return err
					}
				}
				if err := indexEmail(tx, u.ID, was.Email, u.Email); err != nil {
					return err
				}
				if err := indexCustomer(tx, u.ID, was.StripeCustomerID, u.StripeCustomerID); err != nil {
					return err
				}
				s.changed(tx, u.ID) // putUser's hook, for the stored bytes as they are
				return tx.Bucket(bucketUsers).Put([]byte(u.ID), v)
			})
			if err != nil {
				return err
			}
		}
		for _, sm := range r.Messages {
			if err := core.ValidID("message", sm.Plain.ID); err != nil {
				return err
			}
			rec := recordOf(sm)
			v := rec.marshal()
			err := put(bucketMessages, rec.ID, v, func(old []byte) error {
				var was *messageIndex
				if old != nil {
					var oldRec messageRecord
					if err := oldRec.unmarshal(old); err != nil {
						return err
					}
					x := oldRec.index()
					was = &x
				}
				return s.putMessageRecord(tx, was, indexOf(&sm.Plain), v)
			})
			if err != nil {
				return err
			}
		}
		for _, x := range r.Sessions {
			if err := core.ValidID("session", x.ID); err != nil {
				return err
			}
			v, err := encodeSession(x)
			if err != nil {
				return err
			}
			err = put(bucketSessions, []byte(x.ID), v, func(old []byte) error {
				var was *core.Session
				if old != nil {
					if was, err = decodeSession(old); err != nil {
						return err
					}
				}
				return s.putSession(tx, was, x)
			})
			if err != nil {
				return err
			}
		}
		for _, t := range r.AccessTokens {
			if err := core.ValidID("access token", t.ID); err != nil {
				return err
			}
			v, err := encodeToken(t)
			if err != nil {
				return err
			}
			err = put(bucketTokens, []byte(t.ID), v, func(old []byte) error {
				var was *core.AccessToken
				if old != nil {
					if was, err = decodeToken(old); err != nil {
						return err
					}
				}
				return putToken(tx, was, t)
			})
			if err != nil {
				return err
			}
		}
		for _, c := range r.ActionCodes {
			v, err := encodeActionCode(c)
			if err != nil {
				return err
			}
			err = put(bucketActionCodes, []byte(c.Hash), v, func(old []byte) error {
				byExpiry := tx.Bucket(bucketActionCodesByExpiry)
				if old != nil {
					was, err := decodeActionCode(old)
					if err != nil {
						return err
					}
					if !was.ExpiresAt.IsZero() {
						if err := byExpiry.Delete(timeID(was.ExpiresAt, was.Hash)); err != nil {
							return err
						}
					}
				}
				if !c.ExpiresAt.IsZero() {
					if err := byExpiry.Put(timeID(c.ExpiresAt, c.Hash), nil); err != nil {
						return err
					}
				}
				return tx.Bucket(bucketActionCodes).Put([]byte(c.Hash), v)
			})
			if err != nil {
				return err
			}
		}
		for _, sc := range r.Contacts {
			c := &sc.Plain
			if err := core.ValidID("contact", c.ID); err != nil {
				return err
			}
			v, err := encode(contactRecordOf(sc))
			if err != nil {
				return err
			}
			key := timeID(c.CreatedAt, c.ID)
			if err := put(bucketContacts, key, v, func([]byte) error { return tx.Bucket(bucketContacts).Put(key, v) }); err != nil {
				return err
			}
		}
		for _, f := range r.Refusals {
			v, err := encode(refusalRecord{header: current, At: unixNano(f.At)})
			if err != nil {
				return err
			}
			if err := put(bucketRefusals, f.Hash, v, func([]byte) error { return tx.Bucket(bucketRefusals).Put(f.Hash, v) }); err != nil {
				return err
			}
		}
		for _, ss := range r.Suppressions {
			if len(ss.Hash) == 0 || len(ss.Address) == 0 {
				return core.Errorf(core.EInvalid, "A suppressed address has no hash or no sealed address.")
			}
			v, err := encode(suppressionRecord{header: current, At: ss.At, Address: ss.Address, Reason: ss.Reason})
			if err != nil {
				return err
			}
			if err := put(bucketSuppressions, ss.Hash, v, func([]byte) error { return tx.Bucket(bucketSuppressions).Put(ss.Hash, v) }); err != nil {
				return err
			}
		}
		for _, si := range r.Outbox {
			v, err := encode(outboxRecordOf(si))
			if err != nil {
				return err
			}
			if err := put(bucketWebhooks, []byte(si.Plain.ID), v, func([]byte) error { return putSealedOutboxItem(tx, si) }); err != nil {
				return err
			}
		}
		events := tx.Bucket(bucketEvents)
		for _, se := range r.Events {
			key, v, err := encodeEvent(se)
			if err != nil {
				return err
			}
			if err := put(bucketEvents, key, v, func([]byte) error { return events.Put(key, v) }); err != nil {
				return err
			}
			if uint64(se.Seq) > events.Sequence() {
				if err := events.SetSequence(uint64(se.Seq)); err != nil {
					return err
				}
			}
		}
		for _, sk := range r.BounceMarks {
			key, v, err := encodeBounceMark(sk)
			if err != nil {
				return err
			}
			if err := put(bucketBounceMarks, key, v, func([]byte) error { return tx.Bucket(bucketBounceMarks).Put(key, v) }); err != nil {
				return err
			}
		}
		for _, w := range r.WebhookSecrets {
			if err := core.ValidID("user", w.UserID); err != nil {
				return err
			}
			key := []byte(w.UserID)
			if err := put(bucketWebhookSecrets, key, w.Secret, func([]byte) error {
				return tx.Bucket(bucketWebhookSecrets).Put(key, w.Secret)
			}); err != nil {
				return err
			}
		}
		for _, l := range r.ProviderLinks {
			key := linkKey(l.Provider, l.Subject)
			v, err := encodeLink(l)
			if err != nil {
				return err
			}
			err = put(bucketLinks, key, v, func(old []byte) error {
				if old != nil {
					was, err := findLink(tx, key)
					if err != nil {
						return err
					}
					if err := tx.Bucket(bucketLinksByUser).Delete(ownerID(was.UserID, was.Provider)); err != nil {
						return err
					}
					if err := tx.Bucket(bucketLinks).Delete(key); err != nil {
						return err
					}
				}
				return addLink(tx, l)
			})
			if err != nil {
				return err
			}
		}
		for _, e := range r.BillingEvents {
			if err := core.ValidID("billing event", e.ID); err != nil {
				return err
			}
			v := appendTime(nil, e.At)
			err := put(bucketBillingEvents, []byte(e.ID), v, func(old []byte) error {
				byTime := tx.Bucket(bucketBillingByTime)
				if old != nil {
					if err := byTime.Delete(timeID(timeAt(old), e.ID)); err != nil {
						return err
					}
				}
				if err := byTime.Put(timeID(e.At, e.ID), nil); err != nil {
					return err
				}
				return tx.Bucket(bucketBillingEvents).Put([]byte(e.ID), v)
			})
			if err != nil {
				return err
			}
		}
		for _, e := range r.Audit {
			key, v, err := encodeAudit(e)
			if err != nil {
				return err
			}
			if err := put(bucketAudit, key, v, func([]byte) error { return tx.Bucket(bucketAudit).Put(key, v) }); err != nil {
				return err
			}
		}
		for _, pc := range r.PageViews {
			key, v := pageViewKey(pc.Day, pc.Path), binary.BigEndian.AppendUint64(nil, uint64(pc.Views))
			if err := put(bucketPageViews, key, v, func([]byte) error { return tx.Bucket(bucketPageViews).Put(key, v) }); err != nil {
				return err
			}
		}
		return importAccountRecords(tx, r, put)
	})
	return changed, err
}

// importAccountRecords writes the drafts, passkeys and device books of r
// with put (Import's).
func importAccountRecords(tx *bbolt.Tx, r *transfer.Records, put func(bucket, key, v []byte, write func(old []byte) error) error) error {
	for _, d := range r.Drafts {
		if err := core.ValidID("user", d.Owner); err != nil {
			return err
		}
		key, v := ownerID(d.Owner, d.Key), draftValue(d.UpdatedAt, d.Sealed)
		if err := put(bucketDrafts, key, v, func([]byte) error { return tx.Bucket(bucketDrafts).Put(key, v) }); err != nil {
			return err
		}
	}
	for _, p := range r.Passkeys {
		if err := core.ValidID("passkey", p.ID); err != nil {
			return err
		}
		v, err := encodePasskey(p)
		if err != nil {
			return err
		}
		err = put(bucketPasskeys, []byte(p.ID), v, func(old []byte) error {
			if old != nil {
				was, err := decodePasskey(old)
				if err != nil {
					return err
				}
				if err := deletePasskey(tx, was); err != nil {
					return err
				}
			}
			return putPasskey(tx, p)
		})
		if err != nil {
			return err
		}
	}
	for _, b := range r.DeviceBooks {
		if err := core.ValidID("user", b.UserID); err != nil {
			return err
		}
		v, err := encodeDeviceBook(b)
		if err != nil {
			return err
		}
		key := []byte(b.UserID)
		if err := put(bucketDeviceBooks, key, v, func([]byte) error { return tx.Bucket(bucketDeviceBooks).Put(key, v) }); err != nil {
			return err
		}
	}
	for _, a := range r.Attachments {
		if err := importAttachment(tx, a, put); err != nil {
			return err
		}
	}
	return nil
}
