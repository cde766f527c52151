package core

import (
	"context"
	"time"
)

// AccountExport is everything stored about a user (GET /api/me/export),
// without its secrets: the password hash and the postpone codes are
// cleared, access tokens come without their hashes.
type AccountExport struct {
	ExportedAt  time.Time
	User        User // PasswordHash cleared
	HasPassword bool
	Plan        PlanID
	Messages    []*Message // PostponeCode cleared
	// Events are each message's timeline, by message id.
	Events       map[string][]*MessageEvent
	AccessTokens []AccessTokenInfo
	// LinkedAccounts are the social sign-in providers' accounts, oldest
	// first (their wire form says whether each is confirmed, never the
	// hash of its pending code).
	LinkedAccounts []*ProviderLink
}

// Export gathers everything stored about the user of the identity in ctx.
func (a *Auth) Export(ctx context.Context) (*AccountExport, error) {
	if _, err := authorized(ctx, ScopeAccount); err != nil {
		return nil, err
	}
	u, err := a.User(ctx)
	if err != nil {
		return nil, err
	}
	ms, _, err := a.Messages.ListMessages(ctx, MessageFilter{Owner: u.ID})
	if err != nil {
		return nil, err
	}
	if err := JoinBounceMarks(ctx, a.Messages, ms...); err != nil { // kept beside the messages
		return nil, err
	}
	ts, err := a.AccessTokens.ListAccessTokens(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	x := &AccountExport{
		ExportedAt:   a.Clock.Now(),
		User:         *u,
		HasPassword:  u.PasswordHash != "",
		Plan:         a.Prices.PlanFor(u.StripePriceID),
		Messages:     ms,
		AccessTokens: make([]AccessTokenInfo, 0, len(ts)),
	}
	if a.Links != nil {
		if x.LinkedAccounts, err = a.Links.ListProviderLinks(ctx, u.ID); err != nil {
			return nil, err
		}
	}
	x.User.PasswordHash = ""
	x.Events = make(map[string][]*MessageEvent, len(ms))
	for _, m := range ms {
		m.PostponeCode = ""
		if x.Events[m.ID], err = a.Messages.ListMessageEvents(ctx, m.ID); err != nil {
			return nil, err
		}
	}
	for _, t := range ts {
		x.AccessTokens = append(x.AccessTokens, t.Info())
	}
	return x, nil
}
