package inbound

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sendlater/sendlater/core"
)

// snsMessage is an SNS HTTP(S) delivery: a SubscriptionConfirmation, a
// Notification or an UnsubscribeConfirmation.
type snsMessage struct {
	Type             string  `json:"Type"`
	MessageID        string  `json:"MessageId"`
	Token            string  `json:"Token"`
	TopicArn         string  `json:"TopicArn"`
	Subject          *string `json:"Subject"`
	Message          string  `json:"Message"`
	Timestamp        string  `json:"Timestamp"`
	SignatureVersion string  `json:"SignatureVersion"`
	Signature        string  `json:"Signature"`
	SigningCertURL   string  `json:"SigningCertURL"`
	SubscribeURL     string  `json:"SubscribeURL"`
}

// The SNS message types.
const (
	snsSubscription   = "SubscriptionConfirmation"
	snsNotification   = "Notification"
	snsUnsubscription = "UnsubscribeConfirmation"
)

// stringToSign is what SNS signs: the message's fields in this order, each
// "Name\nvalue\n", Subject only when the message has one.
func (m *snsMessage) stringToSign() string {
	var b strings.Builder
	add := func(k, v string) { b.WriteString(k + "\n" + v + "\n") }
	add("Message", m.Message)
	add("MessageId", m.MessageID)
	if m.Type == snsNotification {
		if m.Subject != nil {
			add("Subject", *m.Subject)
		}
		add("Timestamp", m.Timestamp)
		add("TopicArn", m.TopicArn)
		add("Type", m.Type)
		return b.String()
	}
	add("SubscribeURL", m.SubscribeURL)
	add("Timestamp", m.Timestamp)
	add("Token", m.Token)
	add("TopicArn", m.TopicArn)
	add("Type", m.Type)
	return b.String()
}

// snsHost is the host of Amazon's SNS endpoints, the only one whose
// certificates and subscription URLs are trusted.
var snsHost = regexp.MustCompile(`^sns\.[a-z0-9-]+\.amazonaws\.com$`)

// trustedURL tells whether raw is an https URL of SNS (or, in tests, under
// TestURLPrefix); pem: it must also name a .pem file.
func (c *SESConfig) trustedURL(raw string, pem bool) bool {
	if c.TestURLPrefix != "" && strings.HasPrefix(raw, c.TestURLPrefix) {
		return true
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil || u.Port() != "" || !snsHost.MatchString(u.Host) {
		return false
	}
	return !pem || strings.HasSuffix(u.Path, ".pem")
}

func (c *SESConfig) client() *http.Client {
	if c.Client != nil {
		cl := *c.Client
		cl.CheckRedirect = noRedirect
		return &cl
	}
	return &http.Client{Timeout: 10 * time.Second, CheckRedirect: noRedirect}
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func (c *SESConfig) maxAge() time.Duration {
	if c.MaxAge == 0 {
		return DefaultSNSMaxAge
	}
	return c.MaxAge
}

// HandleSES takes one SNS delivery of an SES event: it checks the topic, the
// signature and the age, confirms a subscription, and hands a bounce or a
// complaint to the processor once per SNS message id.
func (w *Webhooks) HandleSES(ctx context.Context, call core.BounceWebhookCall) (core.BounceWebhookOutcome, error) {
	if len(w.SES.TopicARNs) == 0 {
		return "", core.Errorf(core.ENotFound, "There is no API endpoint POST /api/webhooks/ses: mail.ses.topic_arn is not set.")
	}
	if err := w.limited(ctx, call.Client); err != nil {
		return "", err
	}
	var m snsMessage
	if err := json.Unmarshal(call.Body, &m); err != nil {
		return "", core.Errorf(core.EInvalidJSON, "The body must be an SNS message in JSON.")
	}
	switch m.Type {
	case snsSubscription, snsNotification, snsUnsubscription:
	default:
		return "", core.Errorf(core.EInvalid, "Type must be SubscriptionConfirmation, Notification or UnsubscribeConfirmation.")
	}
	if call.MessageType != "" && call.MessageType != m.Type {
		return "", core.Errorf(core.EInvalid, "The x-amz-sns-message-type header must be the message's Type.")
	}
	if !slices.Contains(w.SES.TopicARNs, m.TopicArn) {
		w.logger().Warn("webhook ses: a topic not in mail.ses.topic_arn, refused", "topic", m.TopicArn)
		return "", w.refused(ctx, call.Client, core.Errorf(core.EWebhookRefused, "TopicArn is not one of this server's topics (mail.ses.topic_arn)."))
	}
	if err := w.verifySNS(ctx, &m); err != nil {
		w.logger().Warn("webhook ses: signature refused", "err", err)
		return "", w.refused(ctx, call.Client, core.Errorf(core.EWebhookRefused, "The message's signature could not be verified with Amazon SNS's certificate."))
	}
	at, err := time.Parse(time.RFC3339Nano, m.Timestamp)
	now := w.Clock.Now()
	if err != nil || now.Sub(at) > w.SES.maxAge() || at.Sub(now) > 15*time.Minute {
		return "", core.Errorf(core.EWebhookRefused, "Timestamp must be within the last %s: an older message is a replay.", w.SES.maxAge())
	}
	switch m.Type {
	case snsSubscription:
		return w.confirm(ctx, &m)
	case snsUnsubscription:
		w.logger().Warn("webhook ses: the topic's subscription was ended", "topic", m.TopicArn)
		return core.WebhookSkipped, nil
	}
	r, ok := w.sesReport(m.Message)
	if !ok {
		return core.WebhookSkipped, nil
	}
	return w.once(ctx, "ses:"+m.MessageID, r)
}

// confirm confirms the subscription by a GET of its SubscribeURL, which
// must be SNS's own over https (the message is signed by now); any other
// URL is logged for the operator, who may confirm it by hand.
func (w *Webhooks) confirm(ctx context.Context, m *snsMessage) (core.BounceWebhookOutcome, error) {
	log := w.logger().With("topic", m.TopicArn)
	if !w.SES.trustedURL(m.SubscribeURL, false) {
		log.Warn("webhook ses: a SubscribeURL not at sns.<region>.amazonaws.com: not confirmed; open it yourself if you trust it", "subscribe_url", m.SubscribeURL)
		return core.WebhookSubscribed, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.SubscribeURL, nil)
	if err != nil {
		return "", core.Errorf(core.EInvalid, "SubscribeURL is not a URL.")
	}
	resp, err := w.SES.client().Do(req)
	if err != nil {
		log.Warn("webhook ses: confirming the subscription failed", "err", err)
		return "", core.Errorf(core.EUnavailable, "The subscription could not be confirmed now; SNS will send the confirmation again.")
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		log.Warn("webhook ses: confirming the subscription failed", "status", resp.StatusCode)
		return "", core.Errorf(core.EUnavailable, "The subscription could not be confirmed now; SNS will send the confirmation again.")
	}
	log.Info("webhook ses: subscription confirmed")
	return core.WebhookSubscribed, nil
}

// verifySNS checks m's signature with the certificate of its
// SigningCertURL: SignatureVersion 1 is SHA1withRSA, 2 SHA256withRSA.
func (w *Webhooks) verifySNS(ctx context.Context, m *snsMessage) error {
	var h crypto.Hash
	switch m.SignatureVersion {
	case "1":
		h = crypto.SHA1
	case "2":
		h = crypto.SHA256
	default:
		return fmt.Errorf("SignatureVersion %q", m.SignatureVersion)
	}
	sig, err := base64.StdEncoding.DecodeString(m.Signature)
	if err != nil || len(sig) == 0 {
		return errors.New("the signature is not base64")
	}
	if !w.SES.trustedURL(m.SigningCertURL, true) {
		return fmt.Errorf("SigningCertURL %q is not https://sns.<region>.amazonaws.com/....pem", m.SigningCertURL)
	}
	cert, err := w.cert(ctx, m.SigningCertURL)
	if err != nil {
		return err
	}
	key, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return errors.New("the certificate's key is not RSA")
	}
	var digest []byte
	if h == crypto.SHA1 {
		d := sha1.Sum([]byte(m.stringToSign()))
		digest = d[:]
	} else {
		d := sha256.Sum256([]byte(m.stringToSign()))
		digest = d[:]
	}
	return rsa.VerifyPKCS1v15(key, h, digest, sig)
}

// certTTL is how long a fetched certificate is used before it is fetched
// again; maxCerts bounds the cache (SNS uses one certificate a region).
const (
	certTTL  = 24 * time.Hour
	maxCerts = 32
)

type certCache struct {
	mu sync.Mutex
	m  map[string]cachedCert
}

type cachedCert struct {
	cert *x509.Certificate
	at   time.Time
}

// cert returns the certificate at u, from the cache or fetched, within
// its validity.
func (w *Webhooks) cert(ctx context.Context, u string) (*x509.Certificate, error) {
	now := w.Clock.Now()
	c := &w.certs
	c.mu.Lock()
	got, ok := c.m[u]
	c.mu.Unlock()
	if !ok || now.Sub(got.at) > certTTL || now.After(got.cert.NotAfter) {
		cert, err := w.fetchCert(ctx, u)
		if err != nil {
			return nil, err
		}
		got = cachedCert{cert: cert, at: now}
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxCerts {
			c.m = map[string]cachedCert{}
		}
		c.m[u] = got
		c.mu.Unlock()
	}
	if now.Before(got.cert.NotBefore) || now.After(got.cert.NotAfter) {
		return nil, errors.New("the signing certificate is not valid now")
	}
	return got.cert, nil
}

func (w *Webhooks) fetchCert(ctx context.Context, u string) (*x509.Certificate, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := w.SES.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the signing certificate: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching the signing certificate: status %d", resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("fetching the signing certificate: %w", err)
	}
	block, _ := pem.Decode(raw)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("the signing certificate is not a PEM certificate")
	}
	return x509.ParseCertificate(block.Bytes)
}

// sesEvent is the SES event an SNS notification carries: a notification
// of an identity (notificationType) or an event of a configuration set
// (eventType).
type sesEvent struct {
	NotificationType string `json:"notificationType"`
	EventType        string `json:"eventType"`
	Mail             struct {
		Source     string `json:"source"`
		ReturnPath string `json:"returnPath"`
		Headers    []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"headers"`
		CommonHeaders struct {
			ReturnPath string `json:"returnPath"`
		} `json:"commonHeaders"`
	} `json:"mail"`
	Bounce *struct {
		BounceType        string `json:"bounceType"`
		BounceSubType     string `json:"bounceSubType"`
		BouncedRecipients []struct {
			EmailAddress   string `json:"emailAddress"`
			Status         string `json:"status"`
			DiagnosticCode string `json:"diagnosticCode"`
		} `json:"bouncedRecipients"`
	} `json:"bounce"`
	Complaint *struct {
		ComplaintFeedbackType string `json:"complaintFeedbackType"`
	} `json:"complaint"`
}

// sesReport reads the SES event of a notification's Message; false: not a
// bounce or a complaint (a delivery, a send, an open), or not SES's.
func (w *Webhooks) sesReport(message string) (core.BounceReport, bool) {
	var ev sesEvent
	if err := json.Unmarshal([]byte(message), &ev); err != nil {
		w.logger().Info("webhook ses: a notification that is no SES event, dropped")
		return core.BounceReport{}, false
	}
	kind := ev.NotificationType
	if kind == "" {
		kind = ev.EventType
	}
	candidates := []string{ev.Mail.ReturnPath, ev.Mail.CommonHeaders.ReturnPath, ev.Mail.Source}
	for _, h := range ev.Mail.Headers {
		if strings.EqualFold(h.Name, "Return-Path") {
			candidates = append(candidates, h.Value)
		}
	}
	r := core.BounceReport{Source: "ses", ReturnPath: w.returnPath(candidates...)}
	switch {
	case kind == "Bounce" && ev.Bounce != nil:
		r.Kind = core.BounceSoft // Transient and Undetermined: counted
		if ev.Bounce.BounceType == "Permanent" {
			r.Kind = core.BounceHard
		}
		for _, rc := range ev.Bounce.BouncedRecipients {
			if d := diagnostic(rc.DiagnosticCode); d != "" && r.Reason == "" {
				r.Reason = d
			}
			if rc.Status != "" && r.Status == "" {
				r.Status = rc.Status
			}
		}
		if r.Status == "" {
			r.Status = enhancedStatus.FindString(r.Reason)
		}
		if r.Reason == "" {
			r.Reason = strings.TrimSpace(ev.Bounce.BounceType + " bounce (" + ev.Bounce.BounceSubType + ")")
		}
	case kind == "Complaint" && ev.Complaint != nil:
		r.Kind = core.BounceComplaint
		r.Reason = ev.Complaint.ComplaintFeedbackType
		if r.Reason == "" {
			r.Reason = "complaint"
		}
	default:
		return core.BounceReport{}, false // Delivery, Send, Open, ...: nothing to act on
	}
	return r, true
}
