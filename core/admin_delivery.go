package core

import (
	"context"
	"time"
)

// The operator's delivery controls (`sendlater send-due`, `sendlater
// messages reschedule|deliver-now|pause|resume`).

func (s *AdminService) delivery() (*Delivery, error) {
	if s.Delivery == nil {
		return nil, Errorf(EUnavailable, "Delivery is not configured in this process.")
	}
	return s.Delivery, nil
}

func (s *AdminService) SendDue(ctx context.Context) (PassResult, error) {
	d, err := s.delivery()
	if err != nil {
		return PassResult{}, err
	}
	return d.Run(ctx)
}

func (s *AdminService) PreviewDue(ctx context.Context, at time.Time) ([]DueSend, error) {
	d, err := s.delivery()
	if err != nil {
		return nil, err
	}
	return d.Preview(ctx, at)
}

// steer edits a message that has not gone out and is not being sent.
func (s *AdminService) steer(ctx context.Context, id string, fn func(m *Message) error) (*Message, error) {
	return bodyless(s.Messages.UpdateMessage(ctx, id, func(m *Message) error {
		if err := m.checkCanChange(); err != nil {
			return err
		}
		before := *m
		if err := fn(m); err != nil {
			return err
		}
		m.UpdatedAt = s.Clock.Now()
		recordEdit(&before, m, MessageUpdate{}, m.UpdatedAt, ActorOperator)
		return nil
	}))
}

// RescheduleMessage moves sendDate to at: reminders and attempts start over
// for the new date, and a failed message is scheduled again.
func (s *AdminService) RescheduleMessage(ctx context.Context, id string, at time.Time) (*Message, error) {
	if at.IsZero() {
		return nil, ValidationError(map[string]string{"at": "Please give the new delivery time"})
	}
	m, err := s.steer(ctx, id, func(m *Message) error {
		m.setSendDate(at)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, s.audit(ctx, "messages.reschedule", id, "to "+at.UTC().Format(time.RFC3339))
}

// DeliverNow makes an active message due now and runs a pass.
func (s *AdminService) DeliverNow(ctx context.Context, id string) (*Message, PassResult, error) {
	d, err := s.delivery()
	if err != nil {
		return nil, PassResult{}, err
	}
	if _, err := s.steer(ctx, id, func(m *Message) error {
		if !m.IsActive {
			return Errorf(EConflict, "The message is paused; resume it first.")
		}
		m.setSendDate(s.Clock.Now())
		return nil
	}); err != nil {
		return nil, PassResult{}, err
	}
	if err := s.audit(ctx, "messages.deliver-now", id, "made due now"); err != nil {
		return nil, PassResult{}, err
	}
	res, err := d.Run(ctx)
	if err != nil {
		return nil, res, err
	}
	m, err := s.FindMessage(ctx, id)
	return m, res, err
}

func (s *AdminService) SetMessageActive(ctx context.Context, id string, active bool) (*Message, error) {
	if active {
		m, err := s.FindMessage(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := s.checkOwnerEnabled(ctx, m); err != nil {
			return nil, err
		}
	}
	m, err := s.steer(ctx, id, func(m *Message) error {
		m.IsActive = active
		return nil
	})
	if err != nil {
		return nil, err
	}
	action := "messages.pause"
	if active {
		action = "messages.resume"
	}
	return m, s.audit(ctx, action, id, "")
}

func (s *AdminService) Passes(ctx context.Context) ([]PassResult, error) {
	if s.Delivery == nil || s.Delivery.Log == nil {
		return []PassResult{}, nil
	}
	return s.Delivery.Log.Last(), nil
}

func (s *AdminService) DeliveryHealth(ctx context.Context) (DeliveryHealth, error) {
	if s.Delivery == nil || s.Delivery.Monitor == nil {
		return HealthOf(nil, s.Clock.Now()), nil
	}
	return s.Delivery.Monitor.DeliveryHealth(ctx)
}
