package core

// The pass's last step: the calls that follow an outcome, retried like a
// delivery: business webhooks after a delivery and the email that tells an
// author a delivery failed for good.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// WebhookSender posts a signed webhook. A *TemporaryError may pass on a later
// try; any other error is permanent.
type WebhookSender interface {
	Post(ctx context.Context, url string, body []byte, headers map[string]string) error
}

// sendFailureNotice emails the author of a failed message what happened. A
// message or account deleted since has nobody left to tell.
func (d *Delivery) sendFailureNotice(ctx context.Context, c *WebhookCall) (done bool, err error) {
	m, err := d.Messages.FindMessageByID(ctx, c.MessageID)
	if ErrorCode(err) == EMessageNotFound {
		return true, nil
	}
	if err != nil {
		return false, &TemporaryError{Err: err}
	}
	author, err := d.Users.FindUserByID(ctx, c.Owner)
	if ErrorCode(err) == EUserNotFound {
		return true, nil
	}
	if err != nil {
		return false, &TemporaryError{Err: err}
	}
	email, err := d.Emails.DeliveryFailed(DeliveryFailedEmail{
		To: Address{Name: author.Name, Address: author.Email}, Title: m.Title,
		Recipient: Address{Name: m.Name, Address: m.Recipient}, Reason: m.LastError,
		DashboardLink: d.BaseURL + "/dashboard",
	})
	if err != nil {
		return false, err
	}
	return false, d.Mailer.Send(ctx, email)
}

// WebhookPayload is the JSON body of a delivery webhook.
type WebhookPayload struct {
	Event       string `json:"event"`
	MessageID   string `json:"messageId"`
	Recipient   string `json:"recipient"`
	DeliveredAt int64  `json:"deliveredAt"` // milliseconds since the epoch, as API.md
	Attempt     int    `json:"attempt"`
}

// WebhookSignatureHeader carries "sha256=" and the hex HMAC-SHA256 of the
// raw body under the user's webhook secret.
const WebhookSignatureHeader = "X-Sendlater-Signature"

// SignWebhook returns the signature header value of body under secret.
func SignWebhook(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// callWebhooks posts every due webhook call, one batch at a time.
func (d *Delivery) callWebhooks(ctx context.Context, counts *passCounts) error {
	for ctx.Err() == nil {
		now := d.Clock.Now()
		calls, err := d.Store.ClaimWebhooks(ctx, now, now.Add(d.lease()), 4*d.concurrency())
		if err != nil || len(calls) == 0 {
			return err
		}
		sem := make(chan struct{}, d.concurrency())
		var wg sync.WaitGroup
		for _, c := range calls {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				d.callWebhook(ctx, c, counts)
			}()
		}
		wg.Wait()
	}
	return nil
}

func (d *Delivery) callWebhook(ctx context.Context, c *WebhookCall, counts *passCounts) {
	kind := c.Kind
	if kind == CallWebhook {
		kind = "webhook"
	}
	log := d.logger().With("message", c.MessageID, "kind", kind)
	var done bool
	var err error
	if c.Kind == CallFailureNotice {
		done, err = d.sendFailureNotice(ctx, c)
	} else {
		done, err = d.postWebhook(ctx, c)
	}
	now := d.Clock.Now()
	switch {
	case done:
	case err == nil:
		done = true
		if c.Kind == CallWebhook {
			counts.add(func(r *PassResult) { r.Webhooks++ })
		}
	case ctx.Err() != nil:
		c.NextAttemptAt = now
	case isTemporary(err) && c.Attempts < len(RetryDelays):
		c.NextAttemptAt = now.Add(RetryDelays[c.Attempts])
		c.Attempts++
		c.LastError = err.Error()
		log.Warn("call failed, will retry", "attempt", c.Attempts, "err", err)
	default:
		done = true
		log.Error("call failed for good", "err", err)
	}
	d.settleWebhook(ctx, c, done, counts, log)
}

// postWebhook POSTs a delivered message's webhook call, signed with its
// owner's secret. An account deleted since took its consent with it: the
// call is done unsent.
func (d *Delivery) postWebhook(ctx context.Context, c *WebhookCall) (done bool, err error) {
	if _, err := d.Users.FindUserByID(ctx, c.Owner); ErrorCode(err) == EUserNotFound {
		return true, nil
	}
	if d.Webhooks == nil {
		return false, &TemporaryError{Err: errors.New("no webhook client is configured")}
	}
	secret, err := d.Store.WebhookSecret(ctx, c.Owner)
	if err != nil {
		return false, &TemporaryError{Err: err}
	}
	body, _ := json.Marshal(WebhookPayload{Event: "message.delivered", MessageID: c.MessageID,
		Recipient: c.Recipient, DeliveredAt: c.DeliveredAt.UnixMilli(), Attempt: c.Attempts + 1})
	headers := map[string]string{"Content-Type": "application/json"}
	if secret != "" {
		headers[WebhookSignatureHeader] = SignWebhook(secret, body)
	}
	return false, d.Webhooks.Post(ctx, c.URL, body, headers)
}

func (d *Delivery) settleWebhook(ctx context.Context, c *WebhookCall, done bool, counts *passCounts, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := d.Store.SettleWebhook(sctx, c, done); err != nil {
		d.passError(counts, log, err)
	}
}
