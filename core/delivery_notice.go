package core

// "Tell the recipient now": a short notice to one recipient, long before
// the delivery, that a message waits for them: who wrote it, none of its
// content. A dead address then shows today, not on the delivery date.

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Notices are counted per account and per receiving address, never per
// message, as test sends are; an address gets at most one a day and three
// a month, whoever sends them.
var (
	LimitNoticesAccountHour  = Limit{"notice-account-hour", 5, time.Hour}
	LimitNoticesAccountDay   = Limit{"notice-account-day", 20, 24 * time.Hour}
	LimitNoticesAddressDay   = Limit{"notice-address-day", 1, 24 * time.Hour}
	LimitNoticesAddressMonth = Limit{"notice-address-month", 3, 30 * 24 * time.Hour}
)

// ERecipientRefused: the recipient refused every email sent through this
// service.
const ERecipientRefused = "message/recipient-refused"

// RecipientNoticeEmail tells To that Author wrote them a message that will
// be delivered later, with a one-click refusal of every email.
type RecipientNoticeEmail struct {
	To              Address
	Author          string // the author's name, else their address
	UnsubscribeLink string
}

// NotifyRecipient emails address, a recipient of the author's message id,
// the notice that a message waits for them; nothing of the message itself.
// The author must have confirmed their address; an address that refused
// every email gets none (ERecipientRefused); notices are limited per
// account and per address (LimitNotices*); each carries the recipient's
// one-click refusal (RFC 8058), the same a delivery carries.
func (s *MessageService) NotifyRecipient(ctx context.Context, id, address string) error {
	if _, err := authorized(ctx, ScopeMessagesWrite); err != nil {
		return err
	}
	m, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	u, err := s.author(ctx, ScopeMessagesWrite)
	if err != nil {
		return err
	}
	var to *Recipient
	index := 0
	for i, r := range m.RecipientList() {
		if strings.EqualFold(r.Address, address) {
			to, index = &r, i
			break
		}
	}
	if to == nil {
		return ValidationError(map[string]string{"recipient": "This address is not a recipient of this message"})
	}
	if s.Emails == nil || s.Outbox == nil {
		return Errorf(EUnavailable, "Notices are not available on this server.")
	}
	if !u.EmailVerified {
		return Errorf(EEmailNotVerified,
			"Please confirm your email address first: follow the link we sent to %s, then tell the recipient.", u.Email)
	}
	link := ""
	if s.Refusals != nil {
		refused, err := s.Refusals.Store.AddressRefused(ctx, to.Address)
		if err != nil {
			return err
		}
		if refused {
			return Errorf(ERecipientRefused, "%s refused every email sent through this service, so no notice is sent.", to.Address)
		}
		link = refusalLink(s.BaseURL, s.Refusals.Tokens, to.Address)
	}
	author := u.Name
	if author == "" {
		author = u.Email
	}
	e, err := s.Emails.RecipientNotice(RecipientNoticeEmail{To: Address{Name: to.Name, Address: to.Address}, Author: author, UnsubscribeLink: link})
	if err != nil {
		return err
	}
	e.ReturnPath = s.Bounces.Address(BounceRef{MessageID: m.ID, Recipient: index, Email: BounceNotice, Address: to.Address})
	key := EmailKey(to.Address)
	wait, err := s.Limits.Take(ctx, LimitTake{LimitNoticesAccountHour, u.ID}, LimitTake{LimitNoticesAccountDay, u.ID},
		LimitTake{LimitNoticesAddressDay, key}, LimitTake{LimitNoticesAddressMonth, key})
	if err != nil {
		return err
	}
	if wait > 0 {
		return &Error{Code: ETooManyRequests, RetryAfter: wait, Message: fmt.Sprintf(
			"Notices are limited to one a day and %d a month for each address, and %d an hour for each account: please try again %s.",
			LimitNoticesAddressMonth.Max, LimitNoticesAccountHour.Max, waitWords(wait))}
	}
	return s.Outbox.Email(ctx, e)
}
