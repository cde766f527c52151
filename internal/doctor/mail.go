package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/sendlater/sendlater/dnscheck"
	"github.com/sendlater/sendlater/mailer"
)

// Mail is what the mail section checks: the sending domain (of From) and
// its records, DKIM's key when signing is configured, and the SMTP server.
type Mail struct {
	From     string       // mail.from's address
	DKIM     *mailer.DKIM // nil: signing is not configured
	Resolver *dnscheck.Resolver
	SMTP     SMTP
}

// CheckMail checks the sending domain's SPF, DKIM and DMARC records and the
// SMTP server (connect, EHLO, STARTTLS, AUTH).
func CheckMail(ctx context.Context, m Mail) Section {
	domain := strings.ToLower(m.From[strings.LastIndexByte(m.From, '@')+1:])
	s := Section{Name: "mail", Title: "Mail: sending as " + m.From}
	m.checkSPF(ctx, &s, domain)
	m.checkDKIM(ctx, &s, domain)
	m.checkDMARC(ctx, &s, domain)
	m.SMTP.check(&s)
	return s
}

// CheckSMTP checks the SMTP server alone (connect, EHLO, STARTTLS, AUTH):
// `sendlater doctor smtp`.
func CheckSMTP(c SMTP) Section {
	s := Section{Name: "smtp", Title: "SMTP: mail.smtp.*"}
	c.check(&s)
	return s
}

// txt is the TXT records at name that start with prefix (case aside),
// or the failed check of a lookup that did not answer.
func (m Mail) txt(ctx context.Context, s *Section, check, name, prefix string) ([]string, bool) {
	all, err := m.Resolver.LookupTXT(ctx, name)
	if err != nil {
		s.fail(check, fmt.Sprintf("the DNS did not answer for %s: %v", name, err),
			"check mail.dns_server (or the system's resolver) and the network, then run this again")
		return nil, false
	}
	var out []string
	for _, r := range all {
		if strings.HasPrefix(strings.ToLower(r), strings.ToLower(prefix)) {
			out = append(out, r)
		}
	}
	return out, true
}

func (m Mail) checkSPF(ctx context.Context, s *Section, domain string) {
	const check = "SPF"
	recs, ok := m.txt(ctx, s, check, domain, "v=spf1")
	switch {
	case !ok:
	case len(recs) == 0:
		s.fail(check, "no SPF record at "+domain+": receivers cannot tell that your SMTP server may send as it",
			fmt.Sprintf(`publish %s. IN TXT "v=spf1 include:<your SMTP provider's SPF domain> -all" (or ip4:<your server's address> instead of the include)`, domain))
	case len(recs) > 1:
		s.fail(check, fmt.Sprintf("%d SPF records at %s: receivers treat that as an error (RFC 7208 section 3.2)", len(recs), domain),
			"merge them into one v=spf1 record")
	case strings.Contains(recs[0], "+all"):
		s.fail(check, domain+" has "+recs[0]+": +all lets anyone send as "+domain, "end the record with -all (or ~all)")
	default:
		s.pass(check, recs[0])
	}
}

func (m Mail) checkDKIM(ctx context.Context, s *Section, domain string) {
	const check = "DKIM"
	d := m.DKIM
	if d == nil {
		s.fail(check, "not configured: emails leave unsigned and are more likely to land in spam",
			fmt.Sprintf("run `sendlater dkim keygen --domain %s --selector sendlater --out /etc/sendlater/dkim.pem`, publish the record it prints, and set mail.dkim.domain, mail.dkim.selector and mail.dkim.private_key_file", domain))
		return
	}
	if domain != d.Domain && !strings.HasSuffix(domain, "."+d.Domain) {
		s.fail(check, fmt.Sprintf("mail.dkim.domain %s is not the domain of mail.from (%s) nor a parent of it: DMARC will not count the signature", d.Domain, domain),
			"set mail.dkim.domain to "+domain+" (and publish the key there)")
		return
	}
	want, err := mailer.DKIMRecord(d.Key)
	if err != nil {
		s.fail(check, err.Error(), "make a key with `sendlater dkim keygen`")
		return
	}
	name := d.Selector + "._domainkey." + d.Domain
	recs, ok := m.txt(ctx, s, check, name, "")
	if !ok {
		return
	}
	publish := fmt.Sprintf(`publish %s. IN TXT "%s" (sendlater dkim keygen printed it)`, name, want)
	var published []string
	for _, r := range recs {
		if p, ok := tagValue(r, "p"); ok {
			published = append(published, p)
		}
	}
	wantKey, _ := tagValue(want, "p")
	switch {
	case len(published) == 0:
		s.fail(check, "no DKIM record at "+name+": receivers cannot verify the signature", publish)
	case len(published) > 1:
		s.fail(check, fmt.Sprintf("%d DKIM records at %s: receivers pick one at random", len(published), name), "keep only "+want)
	case published[0] != wantKey:
		s.fail(check, name+" publishes another key than the one in mail.dkim.private_key_file: every signature fails", publish)
	default:
		s.pass(check, name+" publishes the key of mail.dkim.private_key_file")
	}
}

func (m Mail) checkDMARC(ctx context.Context, s *Section, domain string) {
	const check = "DMARC"
	names := []string{"_dmarc." + domain}
	if labels := strings.Split(domain, "."); len(labels) > 2 {
		// A subdomain falls back on its organizational domain's policy
		// (RFC 7489 section 6.6.3; the parent stands in for it here).
		names = append(names, "_dmarc."+strings.Join(labels[1:], "."))
	}
	for _, name := range names {
		recs, ok := m.txt(ctx, s, check, name, "v=DMARC1")
		if !ok {
			return
		}
		if len(recs) == 0 {
			continue
		}
		if len(recs) > 1 {
			s.fail(check, fmt.Sprintf("%d DMARC records at %s: receivers ignore them all", len(recs), name), "keep one")
			return
		}
		p, ok := tagValue(recs[0], "p")
		if !ok || (p != "none" && p != "quarantine" && p != "reject") {
			s.fail(check, name+" has no valid policy (p=none, quarantine or reject): "+recs[0], "add p=none to start, then quarantine")
			return
		}
		s.pass(check, name+": "+recs[0])
		return
	}
	s.fail(check, "no DMARC record at "+names[0]+": receivers do not know what to do with mail that fails SPF and DKIM",
		fmt.Sprintf(`publish %s. IN TXT "v=DMARC1; p=none; rua=mailto:dmarc@%s" (then p=quarantine once the reports are clean)`, names[0], domain))
}

// tagValue is the value of tag in a DKIM or DMARC tag list ("v=DKIM1;
// k=rsa; p=..."), its white space removed.
func tagValue(record, tag string) (string, bool) {
	for _, part := range strings.Split(record, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), tag) {
			return strings.Join(strings.Fields(v), ""), true
		}
	}
	return "", false
}
