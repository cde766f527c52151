package core

import (
	"context"
	"fmt"
	"strings"
)

// AdminSuppressions reads and edits the suppression list (issue 31): the
// addresses that complained and get nothing more from this service.
type AdminSuppressions interface {
	// ListSuppressions lists the suppressed addresses, newest first
	// (audited: it shows addresses).
	ListSuppressions(ctx context.Context) ([]*Suppression, error)
	// RemoveSuppression lets email receive mail again (audited);
	// ENotFound when it is not suppressed.
	RemoveSuppression(ctx context.Context, email string) error
}

func (s *AdminService) suppressions() (SuppressionStore, error) {
	if s.Suppressions == nil {
		return nil, Errorf(EUnavailable, "The suppression list is not available in this process.")
	}
	return s.Suppressions, nil
}

func (s *AdminService) ListSuppressions(ctx context.Context) ([]*Suppression, error) {
	st, err := s.suppressions()
	if err != nil {
		return nil, err
	}
	l, err := st.ListSuppressions(ctx)
	if err != nil {
		return nil, err
	}
	return l, s.audit(ctx, "suppressions.list", "", fmt.Sprintf("%d addresses shown", len(l)))
}

func (s *AdminService) RemoveSuppression(ctx context.Context, email string) error {
	st, err := s.suppressions()
	if err != nil {
		return err
	}
	email = strings.TrimSpace(email)
	if !ValidEmail(email) {
		return ValidationError(map[string]string{"address": "Please enter a valid email address"})
	}
	removed, err := st.Unsuppress(ctx, email)
	if err != nil {
		return err
	}
	if !removed {
		return Errorf(ENotFound, "%s is not on the suppression list.", email)
	}
	return s.audit(ctx, "suppressions.remove", EmailKey(email), "it may receive mail from this service again")
}
