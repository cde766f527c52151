package core

import (
	"context"
	"strings"
	"time"
)

// DeviceFlowScopes are what a token of the device flow may do: what
// `sendlater login` asks for with a password, and not the account.
var DeviceFlowScopes = []string{ScopeMessagesRead, ScopeMessagesWrite}

// DeviceAuthorization is the reply to a terminal that asked to sign in:
// DeviceCode is its secret to poll with, UserCode (XXXX-XXXX) what its
// owner types at VerificationURI.
type DeviceAuthorization struct {
	DeviceCode              string
	UserCode                string
	VerificationURI         string
	VerificationURIComplete string
	ExpiresAt               time.Time
	Interval                time.Duration
}

// DeviceRequest is a waiting request as its approver sees it: what asks,
// from where, since when.
type DeviceRequest struct {
	ClientName string
	Device     string // ParseDevice of its user agent: "sendlater on Linux"
	Network    string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	Scopes     []string
}

// DeviceGrant is what the poller gets once approved: a personal access
// token of the approver, and who that is.
type DeviceGrant struct {
	Token  AccessTokenInfo
	Secret string
	Email  string
}

// DeviceFlow is the device authorization flow, as the web front end
// serves it (implemented by Auth).
type DeviceFlow interface {
	RequestDeviceCode(ctx context.Context, clientName string, c Client) (*DeviceAuthorization, error)
	PollDeviceCode(ctx context.Context, deviceCode string) (*DeviceGrant, error)
	LookUpDeviceCode(ctx context.Context, userCode string, c Client) (*DeviceRequest, error)
	ApproveDeviceCode(ctx context.Context, userCode string, c Client) (*DeviceRequest, error)
	DenyDeviceCode(ctx context.Context, userCode string, c Client) error
}

var _ DeviceFlow = (*Auth)(nil)

func (a *Auth) deviceFlowOn() error {
	if a.DeviceCodes == nil {
		return Errorf(ENotFound, "Signing in from a device is not available on this server.")
	}
	return a.checkKey()
}

// RequestDeviceCode starts the device flow for the terminal c that calls
// itself clientName (the name of the token it will get). Anyone may ask;
// a client may ask LimitDeviceCodesClient times.
func (a *Auth) RequestDeviceCode(ctx context.Context, clientName string, c Client) (*DeviceAuthorization, error) {
	if err := a.deviceFlowOn(); err != nil {
		return nil, err
	}
	clientName = strings.TrimSpace(clientName)
	if err := checkTokenName("clientName", clientName); err != nil {
		return nil, err
	}
	if c.Address != "" {
		n, err := a.Limits.Record(ctx, LimitDeviceCodesClient, a.Limits.Client(c.Address))
		if err != nil {
			return nil, err
		}
		if n > LimitDeviceCodesClient.Max {
			return nil, errTooManyRequests(LimitDeviceCodesClient.Window)
		}
	}
	now := a.Clock.Now()
	secret, user := NewSecret(), NewUserCode()
	ua := c.UserAgent
	if len(ua) > maxUserAgentLen {
		ua = strings.ToValidUTF8(ua[:maxUserAgentLen], "")
	}
	dc := &DeviceCode{
		ID: NewID(), DeviceHash: HashSecret(secret), UserCodeHash: a.userCodeHash(user),
		ClientName: clientName, UserAgent: ua, Network: SignInNetwork(c.Address),
		CreatedAt: now, ExpiresAt: now.Add(DeviceCodeTTL), Interval: DevicePollInterval, Status: DeviceCodePending,
	}
	if err := a.DeviceCodes.CreateDeviceCode(ctx, dc); err != nil {
		return nil, err
	}
	uri := strings.TrimRight(a.BaseURL, "/") + "/device"
	return &DeviceAuthorization{
		DeviceCode: secret, UserCode: FormatUserCode(user),
		VerificationURI: uri, VerificationURIComplete: uri + "?code=" + FormatUserCode(user),
		ExpiresAt: dc.ExpiresAt, Interval: dc.Interval,
	}, nil
}

// approver is the identity in ctx when it may look at, approve or deny a
// request: a session (so every factor passed), never an access token nor
// an operator acting for the user.
func approver(ctx context.Context) (*Identity, error) {
	id, err := signedIn(ctx)
	switch {
	case err != nil:
		return nil, err
	case id.Operator != "":
		return nil, errOperator()
	case id.SessionID == "":
		return nil, Errorf(ERequiresRecentLogin, "Personal access tokens cannot approve a sign-in; use the web app.")
	}
	return id, nil
}

func errInvalidUserCode() error {
	return &Error{Code: EInvalidUserCode,
		Message: "This code is not waiting for approval. Check it against your terminal, or start again there.",
		Fields:  map[string]string{"userCode": "No request waits with this code"}}
}

// pendingCode finds the pending request of the typed user code for the
// approver userID, counting a wrong code against the client and the
// account (LimitDeviceUserCodeClient, LimitDeviceUserCodeAccount).
func (a *Auth) pendingCode(ctx context.Context, userID, typed string, c Client) (*DeviceCode, error) {
	if err := a.deviceFlowOn(); err != nil {
		return nil, err
	}
	code, ok := NormalizeUserCode(typed)
	if !ok {
		return nil, ValidationError(map[string]string{"userCode": "Please enter the 8-letter code your terminal shows, like BCDF-GHJK"})
	}
	client := a.Limits.Client(c.Address)
	if c.Address != "" {
		if err := a.wait(ctx, LimitDeviceUserCodeClient, client); err != nil {
			return nil, err
		}
	}
	if err := a.wait(ctx, LimitDeviceUserCodeAccount, userID); err != nil {
		return nil, err
	}
	dc, err := a.DeviceCodes.FindDeviceCodeByUser(ctx, a.userCodeHash(code))
	if err == nil && dc.Status == DeviceCodePending && a.Clock.Now().Before(dc.ExpiresAt) {
		return dc, nil
	}
	if err != nil && ErrorCode(err) != EExpiredToken {
		return nil, err
	}
	if c.Address != "" {
		if _, err := a.Limits.Record(ctx, LimitDeviceUserCodeClient, client); err != nil {
			return nil, err
		}
	}
	if _, err := a.Limits.Record(ctx, LimitDeviceUserCodeAccount, userID); err != nil {
		return nil, err
	}
	return nil, errInvalidUserCode()
}

func deviceRequest(dc *DeviceCode) *DeviceRequest {
	return &DeviceRequest{
		ClientName: dc.ClientName, Device: ParseDevice(dc.UserAgent).String(), Network: dc.Network,
		CreatedAt: dc.CreatedAt, ExpiresAt: dc.ExpiresAt, Scopes: append([]string(nil), DeviceFlowScopes...),
	}
}

// LookUpDeviceCode shows the signed-in user the request waiting under
// the user code they typed.
func (a *Auth) LookUpDeviceCode(ctx context.Context, userCode string, c Client) (*DeviceRequest, error) {
	id, err := approver(ctx)
	if err != nil {
		return nil, err
	}
	dc, err := a.pendingCode(ctx, id.UserID, userCode, c)
	if err != nil {
		return nil, err
	}
	return deviceRequest(dc), nil
}

// ApproveDeviceCode gives the request of userCode to the signed-in user:
// its poller then gets a token of theirs, once. Making a token needs a
// recent sign-in, as CreateAccessToken does.
func (a *Auth) ApproveDeviceCode(ctx context.Context, userCode string, c Client) (*DeviceRequest, error) {
	return a.decideDeviceCode(ctx, userCode, c, DeviceCodeApproved)
}

// DenyDeviceCode refuses the request of userCode: its poller is told
// access_denied. Any session of the user may deny.
func (a *Auth) DenyDeviceCode(ctx context.Context, userCode string, c Client) error {
	_, err := a.decideDeviceCode(ctx, userCode, c, DeviceCodeDenied)
	return err
}

func (a *Auth) decideDeviceCode(ctx context.Context, userCode string, c Client, status string) (*DeviceRequest, error) {
	id, err := approver(ctx)
	if err != nil {
		return nil, err
	}
	if status == DeviceCodeApproved {
		if err := a.RequireRecentLogin(ctx); err != nil {
			return nil, err
		}
	}
	dc, err := a.pendingCode(ctx, id.UserID, userCode, c)
	if err != nil {
		return nil, err
	}
	now := a.Clock.Now()
	dc, err = a.DeviceCodes.UpdateDeviceCode(ctx, dc.ID, func(x *DeviceCode) error {
		// Another approver may have been first: only a pending one moves.
		if x.Status != DeviceCodePending || !now.Before(x.ExpiresAt) {
			return errInvalidUserCode()
		}
		x.Status, x.UserID, x.SessionID, x.DecidedAt = status, id.UserID, id.SessionID, now
		return nil
	})
	if err != nil {
		if ErrorCode(err) == EExpiredToken {
			return nil, errInvalidUserCode()
		}
		return nil, err
	}
	a.log().Info("device sign-in "+status+" by its owner", "uid", id.UserID, "sid", id.SessionID,
		"client", dc.ClientName, "network", dc.Network, "request", dc.ID)
	return deviceRequest(dc), nil
}

// PollDeviceCode is the terminal's question: is my request approved? It
// answers authorization_pending, slow_down (polled within its interval,
// which then grows), access_denied, expired_token (expired, used or
// unknown) or, once, the approver's new token.
func (a *Auth) PollDeviceCode(ctx context.Context, deviceCode string) (*DeviceGrant, error) {
	if err := a.deviceFlowOn(); err != nil {
		return nil, err
	}
	if deviceCode == "" {
		return nil, ValidationError(map[string]string{"deviceCode": "Please send the device code"})
	}
	dc, err := a.DeviceCodes.FindDeviceCodeByDevice(ctx, HashSecret(deviceCode))
	if err != nil {
		return nil, err
	}
	now := a.Clock.Now()
	var outcome error
	dc, err = a.DeviceCodes.UpdateDeviceCode(ctx, dc.ID, func(x *DeviceCode) error {
		outcome = nil
		switch {
		case !now.Before(x.ExpiresAt) || x.Status == DeviceCodeUsed:
			outcome = ErrDeviceCodeUnknown()
			return nil
		case !x.LastPolledAt.IsZero() && now.Sub(x.LastPolledAt) < x.Interval:
			x.Interval += DeviceSlowDownStep
			outcome = &Error{Code: ESlowDown, RetryAfter: x.Interval,
				Message: "Polling too fast: wait " + x.Interval.String() + " between polls."}
		case x.Status == DeviceCodePending:
			outcome = Errorf(EAuthorizationPending, "Waiting for the sign-in to be approved in the web app.")
		case x.Status == DeviceCodeDenied:
			outcome = Errorf(EAccessDenied, "The sign-in was denied in the web app.")
		case x.Status == DeviceCodeApproved:
			x.Status = DeviceCodeUsed // single use: the one poll that moves it gets the token
		}
		x.LastPolledAt = now
		return nil
	})
	if err != nil {
		return nil, err
	}
	if outcome != nil {
		if c := ErrorCode(outcome); c == EExpiredToken || c == EAccessDenied {
			a.forgetDeviceCode(ctx, dc.ID)
		}
		return nil, outcome
	}
	defer a.forgetDeviceCode(ctx, dc.ID)
	s, err := a.Sessions.FindSessionByID(ctx, dc.SessionID)
	if err != nil || s.UserID != dc.UserID || !now.Before(s.ExpiresAt) {
		return nil, Errorf(EAccessDenied, "The session that approved the sign-in has ended. Start again.")
	}
	u, err := a.Users.FindUserByID(ctx, dc.UserID)
	if err != nil || u.Disabled() {
		return nil, Errorf(EAccessDenied, "The account that approved the sign-in cannot sign in.")
	}
	info, secret, err := a.mintAccessToken(ctx, u.ID, dc.ClientName, DeviceFlowScopes)
	if err != nil {
		return nil, err
	}
	a.noteDevice(ctx, u, dc.UserAgent, dc.Network, now)
	a.log().Info("device sign-in token handed out", "uid", u.ID, "token", info.ID, "request", dc.ID)
	return &DeviceGrant{Token: info, Secret: secret, Email: u.Email}, nil
}

func (a *Auth) forgetDeviceCode(ctx context.Context, id string) {
	if err := a.DeviceCodes.DeleteDeviceCode(ctx, id); err != nil && ErrorCode(err) != EExpiredToken {
		a.log().Warn("deleting a device code", "request", id, "err", err)
	}
}
