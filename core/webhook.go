package core

import "context"

// WebhookSecrets makes the per-user secrets that sign business webhooks.
type WebhookSecrets struct {
	Users  UserStore
	Store  DeliveryStore
	Prices PriceMap
}

// Rotate makes a new secret for the user, replacing any old one, and returns
// it: the only time it is shown. Only active business plans have webhooks.
func (s *WebhookSecrets) Rotate(ctx context.Context, userID string) (string, error) {
	u, err := s.Users.FindUserByID(ctx, userID)
	if err != nil {
		return "", err
	}
	if err := s.Prices.requireBusiness(u); err != nil {
		return "", err
	}
	secret := "whsec_" + NewSecret()
	if err := s.Store.SetWebhookSecret(ctx, userID, secret); err != nil {
		return "", err
	}
	return secret, nil
}
