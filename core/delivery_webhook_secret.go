package core

import "context"

// WebhookSecretService makes the per-user secrets that sign business
// webhooks; it implements WebhookSecrets.
type WebhookSecretService struct {
	Users  UserStore
	Store  DeliveryStore
	Prices PriceMap
}

var _ WebhookSecrets = (*WebhookSecretService)(nil)

// Rotate makes a new secret for the user in ctx, replacing any old one, and
// returns it: the only time it is shown. Only active business plans have
// webhooks.
func (s *WebhookSecretService) Rotate(ctx context.Context) (string, error) {
	id, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return "", err
	}
	u, err := s.Users.FindUserByID(ctx, id.UserID)
	if err != nil {
		return "", err
	}
	if err := s.Prices.requireBusiness(u); err != nil {
		return "", err
	}
	secret := "whsec_" + NewSecret()
	if err := s.Store.SetWebhookSecret(ctx, u.ID, secret); err != nil {
		return "", err
	}
	return secret, nil
}
