package core

import (
	"context"
	"io"
	"time"
)

// The services front ends use. Each is implemented by a service of this
// package over the stores; Messages and Account are also implemented by
// web.APIClient, over the JSON API or the admin socket, so a front end (the
// web server, the TUI) works the same whichever it is given. Who acts is in
// ctx (WithIdentity); a method that needs someone and finds no one answers
// auth/invalid-user-token; a personal access token without the scope a method
// needs (core/identity_scopes.go) answers auth/insufficient-scope.

// Messages is what a signed-in author does with their own messages. Another
// user's message is message/not-found.
type Messages interface {
	// List returns a page of the author's messages, newest first.
	List(ctx context.Context, p Page) (*MessagePage, error)
	Get(ctx context.Context, id string) (*Message, error)
	Create(ctx context.Context, in MessageInput) (*Message, error)
	Update(ctx context.Context, id string, up MessageUpdate) (*Message, error)
	// Postpone moves the message to now + its interval (a no-op on the
	// same day).
	Postpone(ctx context.Context, id string) (*Message, error)
	Delete(ctx context.Context, id string) error
	// Events returns the message's timeline, oldest first.
	Events(ctx context.Context, id string) ([]*MessageEvent, error)
	// Preview renders what each recipient of a message written as in will
	// receive, storing nothing; PreviewMessage the same of the stored
	// message id as it would be after up (zero: as stored), written on its
	// CreatedAt; SendTest emails the author, at a verified address, what
	// each recipient of a stored message will receive (testSendLimits),
	// changing nothing, and returns how many emails it queued.
	Preview(ctx context.Context, in MessageInput) ([]EmailPreview, error)
	PreviewMessage(ctx context.Context, id string, up MessageUpdate) ([]EmailPreview, error)
	SendTest(ctx context.Context, id string) (int, error)
	// NotifyRecipient tells one recipient now that a message waits for
	// them, without its content (delivery_notice.go).
	NotifyRecipient(ctx context.Context, id, address string) error
	// Hold holds all the author's messages until until (core/message_hold.go);
	// EndHold ends the hold now. Both return the session user.
	Hold(ctx context.Context, until time.Time) (*SessionUser, error)
	EndHold(ctx context.Context) (*SessionUser, error)
	// Follow sends the first page of the list (DefaultPageSize messages),
	// with the session user, at once and again after each (coalesced) change
	// to the messages or the account (a plan that starts or lapses), until
	// ctx ends. When the identity stops holding (signed out, revoked,
	// expired, deleted), the author opened more than MaxStreams live lists
	// since (this one, the oldest, gives way: EStreamReplaced), or the list
	// cannot be read, it sends one final value with Err and closes the
	// channel.
	Follow(ctx context.Context) (<-chan MessageList, error)
}

// MessageList is one value of Follow: the first page of the author's list
// and the author as the session user shows them then (the plan, what it
// allows), or the error that ended it.
type MessageList struct {
	Messages []*Message
	User     *SessionUser
	Err      error
}

// Account is what a signed-in client does with its own account.
type Account interface {
	Me(ctx context.Context) (*SessionUser, error)
	UpdateProfile(ctx context.Context, up ProfileUpdate) (*SessionUser, error)
	// SignOut ends the session, or revokes the access token, that acts.
	SignOut(ctx context.Context) error
	// CreateAccessToken returns the new token and its secret, shown once;
	// the token may do what scopes allow (nil: DefaultScopes, read-only).
	CreateAccessToken(ctx context.Context, name string, scopes []string) (AccessTokenInfo, string, error)
	ListAccessTokens(ctx context.Context) ([]AccessTokenInfo, error)
	RevokeAccessToken(ctx context.Context, id string) error
}

// MeKeeper is an optional part of an Account (Auth) that says how long an
// answer of Me holds, so that a reader may keep what it made of it (the
// encoded reply of GET /api/me) under the user's generation: MeGeneration
// before the read, MeTerm for the answer and its term, MeHolds before
// reusing it.
type MeKeeper interface {
	MeGeneration(ctx context.Context) (userID string, gen uint64, ok bool)
	MeTerm(ctx context.Context) (*SessionUser, MeTerm, error)
	MeHolds(t MeTerm) bool
}

// Identities is what the server does for clients that sign up, sign in,
// prove who they are and act on their whole account: the identity
// operations beyond Account. Auth implements it.
type Identities interface {
	Account
	SecondFactors
	SignUp(ctx context.Context, in SignUpInput, c Client) (*Tokens, error)
	SignIn(ctx context.Context, email, password string, c Client) (*Tokens, error)
	// SignInChallenge is a puzzle whose answer (c.Proof) a sign-in to an
	// account under attack needs.
	SignInChallenge(ctx context.Context, email string) (*ProofChallenge, error)
	Refresh(ctx context.Context, refreshToken string) (*Tokens, error)
	// Authenticate checks a bearer token and returns who it proves.
	Authenticate(ctx context.Context, bearer string) (*Identity, error)
	Reauth(ctx context.Context, password string, c Client) (*Tokens, error)
	RequestPasswordReset(ctx context.Context, email string, c Client) error
	ConfirmPasswordReset(ctx context.Context, code, password string) error
	CheckActionCode(ctx context.Context, code string) (*ActionInfo, error)
	ApplyActionCode(ctx context.Context, code string) (*ActionInfo, error)
	SendEmailVerification(ctx context.Context) error
	// SendReminderAddressConfirmation asks the second reminder address
	// to confirm again.
	SendReminderAddressConfirmation(ctx context.Context) error
	ChangePassword(ctx context.Context, password string) error
	DeleteAccount(ctx context.Context) error
	Export(ctx context.Context) (*AccountExport, error)
}

// SecondFactors is the authenticator app and the recovery codes: the sign-in
// step that takes a challenge and a code (identity_twostep.go), and their
// owner's settings (identity_totp.go). Auth implements it.
type SecondFactors interface {
	CompleteSecondFactor(ctx context.Context, token, code string, c Client) (*Tokens, error)
	BeginTOTP(ctx context.Context) (*TOTPEnrolment, error)
	ConfirmTOTP(ctx context.Context, code string) (*RecoveryCodes, error)
	DisableTOTP(ctx context.Context) error
	RegenerateRecoveryCodes(ctx context.Context) (*RecoveryCodes, error)
}

// IdentityVerifier tells whether the identity in ctx still holds; Auth
// implements it (VerifyIdentity).
type IdentityVerifier interface {
	VerifyIdentity(ctx context.Context) error
}

// ContactForm takes contact form submissions from a client address.
type ContactForm interface {
	Submit(ctx context.Context, in ContactInput, address string) error
}

// PostponeLinks serves the reminder email's postpone link: no sign-in, the
// message's postpone code instead, limited per message and client address.
type PostponeLinks interface {
	// Show returns what the page displays and changes nothing.
	Show(ctx context.Context, id, code, client string) (*PostponeView, error)
	// Postpone moves the message and returns its new sendDate.
	Postpone(ctx context.Context, id, code, client string) (time.Time, error)
}

// Refusals serves the one-click refusal links: a delivery email's, of
// every further message to its address, and a test email's, of further
// test emails to its address.
type Refusals interface {
	// Check tells whether a refusal token is valid, and of which kind,
	// changing nothing.
	Check(token string) (RefusalKind, error)
	// Refuse records the refusal of the token's kind by its address.
	Refuse(ctx context.Context, token string) (RefusalKind, error)
}

// WebhookSecrets makes the secret that signs the business webhooks of the
// user in ctx.
type WebhookSecrets interface {
	Rotate(ctx context.Context) (string, error)
}

// Drafts keeps the signed-in author's unsent message forms, one per message
// or DraftNew (core/message_draft.go).
type Drafts interface {
	Get(ctx context.Context, key string) (*Draft, error)
	Put(ctx context.Context, key string, d Draft) (*Draft, error)
	Delete(ctx context.Context, key string) error
}

// Attachments are the signed-in author's files of their messages
// (core/attachment_service.go): the upload in parts, reads and deletion.
type Attachments interface {
	Create(ctx context.Context, messageID, name string, size int64) (*Attachment, error)
	Get(ctx context.Context, messageID, id string) (*Attachment, error)
	List(ctx context.Context, messageID string) ([]*Attachment, error)
	Upload(ctx context.Context, messageID, id string, offset int64, body io.Reader) (*Attachment, error)
	Open(ctx context.Context, messageID, id string) (*Attachment, *AttachmentReader, error)
	Delete(ctx context.Context, messageID, id string) error
	// Usage, AccountFiles and OpenAccountFile are the account's files as
	// a whole (the quota in settings, the export).
	Usage(ctx context.Context) (*AttachmentUsage, error)
	AccountFiles(ctx context.Context) ([]*Attachment, error)
	OpenAccountFile(ctx context.Context, id string) (*Attachment, *AttachmentReader, error)
}

// SchedulerHealth tells whether the schedulers keep passing: of the
// cluster when processes share the store (PassMonitor).
type SchedulerHealth interface {
	DeliveryHealth(ctx context.Context) (DeliveryHealth, error)
}

// Payments is what the server does for payments: the plans on sale, card
// checkout, the billing portal and the provider's webhooks. BillingService
// implements it; PaymentsOff answers while payments are not configured.
type Payments interface {
	// Plans are the plans of the pricing screen, each Purchasable when
	// checkout sells it.
	Plans() []Plan
	Checkout(ctx context.Context, in CheckoutRequest) (*CheckoutSession, error)
	// Portal returns the address of the signed-in user's billing portal.
	Portal(ctx context.Context, returnURL string) (string, error)
	// HandleWebhook verifies and applies one webhook delivery; an error
	// means it was not applied (the provider is to retry).
	HandleWebhook(ctx context.Context, payload []byte, signature string) error
}

// SocialSignIn is what a social provider's profile means for accounts:
// signing in, signing up without an email, linking, signing in again, and
// the signed-in user's links. SocialAuth implements it.
type SocialSignIn interface {
	// Intent is what a provider sign-in that the identity in ctx starts
	// will do: link (a recent login) or sign in again (a session).
	Intent(ctx context.Context, kind string) (SocialIntent, error)
	SignIn(ctx context.Context, p ProviderProfile, c Client) (*Tokens, error)
	SignUpWithEmail(ctx context.Context, p ProviderProfile, email string) error
	Link(ctx context.Context, p ProviderProfile) (*User, error)
	Reauth(ctx context.Context, p ProviderProfile) error
	Unlink(ctx context.Context, provider string) (*SessionUser, error)
	LinkedAccounts(ctx context.Context) ([]*ProviderLink, error)
}
