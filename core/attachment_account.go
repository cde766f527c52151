package core

import "context"

// AttachmentUsage is where an account stands against its plan's limits for
// files (GET /api/me/files, the quota in settings).
type AttachmentUsage struct {
	Plan PlanID
	// Files is how many files the account has (uploads under way too);
	// Used the bytes they reserve.
	Files int
	Used  int64
	// Limits are the plan's: zero on a plan without files.
	Limits   AttachmentLimits
	MaxFiles int // per message
}

// plan is the plan the user in ctx is on for files (Starter when lapsed).
func (s *AttachmentService) plan(ctx context.Context, scope string) (*Identity, PlanID, error) {
	who, err := authorized(ctx, scope)
	if err != nil {
		return nil, "", err
	}
	u, err := s.Users.FindUserByID(ctx, who.UserID)
	if err != nil {
		return nil, "", err
	}
	plan, active := s.Prices.PlanOf(u)
	if !active {
		plan = PlanStarter
	}
	return who, plan, nil
}

// Usage is the files and bytes of the account in ctx and its plan's limits,
// read from the store at each call (never kept: an upload changes it).
func (s *AttachmentService) Usage(ctx context.Context) (*AttachmentUsage, error) {
	who, plan, err := s.plan(ctx, ScopeAccount)
	if err != nil {
		return nil, err
	}
	as, err := s.Attachments.OwnerAttachments(ctx, who.UserID)
	if err != nil {
		return nil, err
	}
	u := &AttachmentUsage{Plan: plan, Files: len(as), Limits: s.LimitsFor(plan), MaxFiles: MaxAttachments}
	for _, a := range as {
		u.Used += a.Size
	}
	return u, nil
}

// AccountFiles are every file of the account in ctx, oldest first (the
// export).
func (s *AttachmentService) AccountFiles(ctx context.Context) ([]*Attachment, error) {
	who, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return nil, err
	}
	return s.Attachments.OwnerAttachments(ctx, who.UserID)
}

// OpenAccountFile opens a complete file id of the account in ctx (the
// export; another's answers as a missing one does). Close it after.
func (s *AttachmentService) OpenAccountFile(ctx context.Context, id string) (*Attachment, *AttachmentReader, error) {
	who, err := authorized(ctx, ScopeAccount)
	if err != nil {
		return nil, nil, err
	}
	if id == "" || len(id) > 64 {
		return nil, nil, ErrAttachmentNotFound()
	}
	a, err := s.Attachments.Attachment(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if a.Owner != who.UserID {
		return nil, nil, ErrAttachmentNotFound()
	}
	if a.State != AttachmentComplete {
		return nil, nil, Errorf(EConflict, "This file is still being uploaded.")
	}
	return a, &AttachmentReader{ctx: ctx, s: s, a: a}, nil
}
