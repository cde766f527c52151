package core

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The operator's account controls (`sendlater users create|disable|enable|
// delete|export`, `messages postpone|delete`, `contacts list`). Each change
// is written to the audit log.

// Disabled reports whether an operator disabled the account: it cannot sign
// in and its messages are held paused until it is enabled.
func (u *User) Disabled() bool { return !u.DisabledAt.IsZero() }

func errUserDisabled() error {
	return Errorf(EUserDisabled, "This account has been disabled. Please contact the site's operator.")
}

func (s *AdminService) auth() (*Auth, error) {
	if s.Auth == nil {
		return nil, Errorf(EUnavailable, "Accounts are not configured in this process.")
	}
	return s.Auth, nil
}

// NewUser is what an operator creates an account with: a password, or none,
// and then a one-time link to choose one.
type NewUser struct {
	Email    string
	Name     string
	Password string
}

// CreatedUser is the account made and, without a password, its one-time
// link to choose one (valid for ResetCodeTTL).
type CreatedUser struct {
	User *User
	Link string
}

// CreateUser creates an account with the operator's password or none; then
// the reply carries a one-time link (the password reset's, valid for
// ResetCodeTTL) with which the user chooses a password, then signs in with
// it; following it also verifies the address.
func (s *AdminService) CreateUser(ctx context.Context, in NewUser) (*CreatedUser, error) {
	a, err := s.auth()
	if err != nil {
		return nil, err
	}
	a.init()
	email := NormalizeEmail(in.Email)
	f := map[string]string{}
	validateEmail(f, "email", email)
	validateProfileName(f, in.Name, false)
	if err := ValidationError(f); err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	u := &User{ID: NewID(), Email: email, Name: strings.TrimSpace(in.Name), Providers: []string{}, CreatedAt: now, UpdatedAt: now}
	if in.Password != "" {
		if err := a.checkPasswordFor("password", in.Password, email, in.Name); err != nil {
			return nil, err
		}
		if u.PasswordHash, err = a.hashPassword(ctx, in.Password); err != nil {
			return nil, err
		}
		u.Providers = []string{ProviderPassword}
	}
	if err := s.Users.CreateUser(ctx, u); err != nil {
		if ErrorCode(err) == EEmailInUse {
			return nil, errEmailInUse()
		}
		return nil, err
	}
	out := &CreatedUser{User: u}
	how := "with a password"
	if in.Password == "" {
		code, err := a.newActionCode(ctx, ModeResetPassword, u, u.Email, "")
		if err != nil {
			return nil, err
		}
		out.Link, how = a.actionLink(ModeResetPassword, code), "with a one-time link to choose a password"
	}
	return out, s.audit(ctx, "users.create", u.Email, how)
}

// SetUserDisabled disables or enables an account. Disabling ends every
// session and access token at once (as a password change does), refuses
// sign-in, and pauses the messages that were active, remembering them:
// enabling resumes exactly those, so a message the user had paused stays
// paused. A message being sent at that moment goes out.
func (s *AdminService) SetUserDisabled(ctx context.Context, idOrEmail string, disabled bool) (*User, error) {
	a, err := s.auth()
	if err != nil {
		return nil, err
	}
	u, err := s.FindUser(ctx, idOrEmail)
	if err != nil {
		return nil, err
	}
	if !disabled {
		return s.enable(ctx, u)
	}
	held := u.HeldMessages
	if !u.Disabled() {
		ms, _, err := s.Messages.ListMessages(ctx, MessageFilter{Owner: u.ID})
		if err != nil {
			return nil, err
		}
		held = []string{}
		for _, m := range ms {
			if m.IsActive && m.checkCanChange() == nil {
				held = append(held, m.ID)
			}
		}
	}
	now := s.Clock.Now()
	u, err = s.Users.UpdateUser(ctx, u.ID, func(u *User) error {
		if !u.Disabled() {
			u.DisabledAt, u.HeldMessages = now, held
		}
		u.UpdatedAt = now
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := a.endEverySession(ctx, u.ID, ""); err != nil {
		return nil, err
	}
	for _, id := range u.HeldMessages {
		if err := s.holdMessage(ctx, id, false); err != nil {
			return nil, err
		}
	}
	return u, s.audit(ctx, "users.disable", u.Email, fmt.Sprintf("signed out everywhere; %d messages held paused", len(u.HeldMessages)))
}

func (s *AdminService) enable(ctx context.Context, u *User) (*User, error) {
	if !u.Disabled() {
		return u, nil
	}
	for _, id := range u.HeldMessages {
		if err := s.holdMessage(ctx, id, true); err != nil {
			return nil, err
		}
	}
	n := len(u.HeldMessages)
	u, err := s.Users.UpdateUser(ctx, u.ID, func(u *User) error {
		u.DisabledAt, u.HeldMessages, u.UpdatedAt = time.Time{}, nil, s.Clock.Now()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, s.audit(ctx, "users.enable", u.Email, fmt.Sprintf("%d messages resumed", n))
}

// holdMessage pauses (active false) or resumes a held message; one that is
// gone, delivered or being sent is left alone.
func (s *AdminService) holdMessage(ctx context.Context, id string, active bool) error {
	_, err := s.Messages.UpdateMessage(ctx, id, func(m *Message) error {
		if err := m.checkCanChange(); err != nil {
			return err
		}
		m.IsActive, m.UpdatedAt = active, s.Clock.Now()
		return nil
	})
	switch ErrorCode(err) {
	case "", EMessageNotFound, EConflict:
		return nil
	}
	return err
}

// ResetSecondFactor removes the user's authenticator app and recovery
// codes: the operator's recovery path for an owner who lost both (after
// checking who asks, outside Sendlater). Sign-in then takes the password
// or provider alone; the owner is emailed, and the act audited.
func (s *AdminService) ResetSecondFactor(ctx context.Context, idOrEmail string) (*User, error) {
	a, err := s.auth()
	if err != nil {
		return nil, err
	}
	u, err := s.FindUser(ctx, idOrEmail)
	if err != nil {
		return nil, err
	}
	had, codes := u.HasSecondFactor(), len(u.RecoveryCodes)
	u, err = s.Users.UpdateUser(ctx, u.ID, func(u *User) error {
		clearSecondFactor(u)
		u.UpdatedAt = s.Clock.Now()
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !had {
		return u, s.audit(ctx, "users.reset-2fa", u.Email, "had no second factor; nothing changed")
	}
	a.securityNotice(ctx, u.ID, SecuritySecondFactorReset, 0)
	return u, s.audit(ctx, "users.reset-2fa", u.Email, fmt.Sprintf("authenticator app and %d recovery codes removed; owner emailed", codes))
}

// DeleteUser deletes an account, its messages, sessions and access tokens.
func (s *AdminService) DeleteUser(ctx context.Context, idOrEmail string) error {
	a, err := s.auth()
	if err != nil {
		return err
	}
	u, err := s.FindUser(ctx, idOrEmail)
	if err != nil {
		return err
	}
	if err := deleting(ctx, s.Files, "", u.ID, func() error { return s.Users.DeleteUser(ctx, u.ID) }); err != nil {
		return err
	}
	if err := a.endEverySession(ctx, u.ID, ""); err != nil {
		return err
	}
	return s.audit(ctx, "users.delete", u.Email, "deleted with every message")
}

// ExportUser is everything stored about a user: the export the user gets
// from GET /api/me/export.
func (s *AdminService) ExportUser(ctx context.Context, idOrEmail string) (*AccountExport, error) {
	a, err := s.auth()
	if err != nil {
		return nil, err
	}
	u, err := s.FindUser(ctx, idOrEmail)
	if err != nil {
		return nil, err
	}
	x, err := a.Export(ActAs(ctx, u.ID))
	if err != nil {
		return nil, err
	}
	return x, s.audit(ctx, "users.export", u.Email, "exported the account")
}

// PostponeMessage postpones a message by its interval, as the author's
// Postpone does.
func (s *AdminService) PostponeMessage(ctx context.Context, id string) (*Message, error) {
	m, err := s.FindMessage(ctx, id)
	if err != nil {
		return nil, err
	}
	owner, err := s.Users.FindUserByID(ctx, m.Owner)
	if err != nil {
		return nil, err
	}
	m, err = s.steer(ctx, id, func(m *Message) error {
		m.Postpone(s.Clock.Now(), owner.Location())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, s.audit(ctx, "messages.postpone", id, "to "+m.SendDate.UTC().Format(time.RFC3339))
}

// DeleteMessage deletes a message that is not being sent.
func (s *AdminService) DeleteMessage(ctx context.Context, id string) error {
	if _, err := s.steer(ctx, id, func(*Message) error { return nil }); err != nil {
		return err
	}
	if err := deleting(ctx, s.Files, id, "", func() error { return s.Messages.DeleteMessage(ctx, id) }); err != nil {
		return err
	}
	return s.audit(ctx, "messages.delete", id, "deleted")
}

// ListContacts lists the contact form's submissions, newest first.
func (s *AdminService) ListContacts(ctx context.Context, limit int) ([]*ContactSubmission, error) {
	if s.Contacts == nil {
		return nil, Errorf(EUnavailable, "Contact submissions are not configured in this process.")
	}
	return s.Contacts.ListContacts(ctx, limit)
}

// checkOwnerEnabled refuses to resume a message held for a disabled user.
func (s *AdminService) checkOwnerEnabled(ctx context.Context, m *Message) error {
	u, err := s.Users.FindUserByID(ctx, m.Owner)
	if err != nil {
		return err
	}
	if u.Disabled() {
		return Errorf(EConflict, "The message's author is disabled; enable them first (sendlater users enable).")
	}
	return nil
}
