package core

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// MailDomains tells whether a domain receives email (dnscheck.Checker: its
// MX records, else its A/AAAA records, cached).
type MailDomains interface {
	// ReceivesMail answers false only when the DNS says that domain has no
	// mail server (no such domain, a null MX, no MX and no address); an
	// error when it could not tell (the resolver is down, slow or failing).
	ReceivesMail(ctx context.Context, domain string) (bool, error)
}

// DefaultDomainCheckTimeout bounds the recipient domain check of one save
// when MessageService.DomainCheckTimeout is zero.
const DefaultDomainCheckTimeout = 1500 * time.Millisecond

// WRecipientNoMail is the code of the warning about a recipient whose domain
// receives no email.
const WRecipientNoMail = "recipient/domain-no-mail"

// Warning is something the author should know about a message they saved,
// which did not stop the save: Field names the input as validation errors
// do (recipient, recipients[1].recipient), Message says it for a person.
type Warning struct {
	Code    string
	Field   string
	Message string
}

// domainWarnings looks up the domain of each of rs's addresses through
// s.Domains, all at once and for at most the check's timeout, and returns a
// warning for each recipient whose domain receives no email. A lookup that
// fails or runs out of time warns of nothing: the check never stops or
// fails a save.
func (s *MessageService) domainWarnings(ctx context.Context, rs []Recipient) []Warning {
	if s.Domains == nil {
		return nil
	}
	timeout := s.DomainCheckTimeout
	if timeout <= 0 {
		timeout = DefaultDomainCheckTimeout
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	var domains []string
	for _, r := range rs {
		if d := mailDomain(r.Address); d != "" && !slices.Contains(domains, d) {
			domains = append(domains, d)
		}
	}
	var mu sync.Mutex
	noMail := map[string]bool{}
	var wg sync.WaitGroup
	for _, d := range domains {
		wg.Go(func() {
			ok, err := s.Domains.ReceivesMail(ctx, d)
			if err == nil && !ok {
				mu.Lock()
				noMail[d] = true
				mu.Unlock()
			}
		})
	}
	// Wait for the lookups, or for the timeout if one does not honor it.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	var ws []Warning
	for i, r := range rs {
		if d := mailDomain(r.Address); d != "" && noMail[d] {
			ws = append(ws, Warning{
				Code:  WRecipientNoMail,
				Field: recipientField(i, "address"),
				Message: fmt.Sprintf("The domain %s does not receive email: check the address, or %s will not get this message.",
					d, r.Address),
			})
		}
	}
	return ws
}

// mailDomain is the domain of address, lower case, when it is a public DNS
// name worth looking up; "" for a local one (localhost, an IP literal, a
// name without a dot: mail.allow_local_recipients).
func mailDomain(address string) string {
	at := strings.LastIndexByte(address, '@')
	if at < 0 {
		return ""
	}
	d := strings.ToLower(address[at+1:])
	if !validDomain(d) {
		return ""
	}
	return d
}
