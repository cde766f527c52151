package core

import (
	"context"
)

// MessageService holds the rules of SPEC.md around an author's messages:
// ownership, the plan limit, validation, sendDate arithmetic and postpone.
type MessageService struct {
	Messages MessageStore
	Users    UserStore
	Prices   PriceMap
	Clock    Clock
}

// List returns the owner's messages, newest first.
func (s *MessageService) List(ctx context.Context, owner string) ([]*Message, error) {
	ms, _, err := s.Messages.ListMessages(ctx, MessageFilter{Owner: owner})
	return ms, err
}

// Get returns the owner's message; another user's message is not found.
func (s *MessageService) Get(ctx context.Context, owner, id string) (*Message, error) {
	m, err := s.Messages.FindMessageByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if m.Owner != owner {
		return nil, errMessageNotFound()
	}
	return m, nil
}

func errMessageNotFound() error { return Errorf(EMessageNotFound, "The message could not be found.") }

// Create validates and stores a new message. The plan limit is checked inside
// the store's write transaction, so concurrent requests cannot exceed it.
func (s *MessageService) Create(ctx context.Context, owner string, in MessageInput) (*Message, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	u, err := s.Users.FindUserByID(ctx, owner)
	if err != nil {
		return nil, err
	}
	if in.WebhookURL != "" {
		if err := s.Prices.requireBusiness(u); err != nil {
			return nil, err
		}
	}
	m := NewMessage(owner, in, s.Clock.Now(), u.Location())
	err = s.Messages.CreateMessage(ctx, m, func(u *User, hasMessages bool) error {
		if plan, active := s.Prices.PlanOf(u); !MayAddMessage(plan, active, hasMessages) {
			return Errorf(EPlanLimit, "Upgrade your plan to add more messages.")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Update applies a partial edit to the owner's message.
func (s *MessageService) Update(ctx context.Context, owner, id string, up MessageUpdate) (*Message, error) {
	if err := up.Validate(); err != nil {
		return nil, err
	}
	u, err := s.Users.FindUserByID(ctx, owner)
	if err != nil {
		return nil, err
	}
	if up.WebhookURL != nil && *up.WebhookURL != "" {
		if err := s.Prices.requireBusiness(u); err != nil {
			return nil, err
		}
	}
	return s.update(ctx, owner, id, func(m *Message) error {
		m.Apply(up, s.Clock.Now(), u.Location())
		return nil
	})
}

// Postpone moves the owner's message to now + its interval (a no-op on the
// same day).
func (s *MessageService) Postpone(ctx context.Context, owner, id string) (*Message, error) {
	u, err := s.Users.FindUserByID(ctx, owner)
	if err != nil {
		return nil, err
	}
	return s.update(ctx, owner, id, func(m *Message) error {
		m.Postpone(s.Clock.Now(), u.Location())
		return nil
	})
}

// Delete deletes the owner's message.
func (s *MessageService) Delete(ctx context.Context, owner, id string) error {
	if _, err := s.Get(ctx, owner, id); err != nil {
		return err
	}
	return s.Messages.DeleteMessage(ctx, id)
}

// update edits the owner's message in one store transaction.
func (s *MessageService) update(ctx context.Context, owner, id string, fn func(m *Message) error) (*Message, error) {
	return s.Messages.UpdateMessage(ctx, id, func(m *Message) error {
		if m.Owner != owner {
			return errMessageNotFound()
		}
		if err := m.checkCanChange(); err != nil {
			return err
		}
		return fn(m)
	})
}
