package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

// deviceLogin signs in by the device flow: the web app approves the code
// this prints, and the token it gets is kept as login's.
func deviceLogin(ctx context.Context, a *app, base, path string) error {
	ctx, cancel := context.WithTimeout(ctx, core.DeviceCodeTTL+time.Minute)
	defer cancel()
	g, err := web.DeviceSignIn(ctx, base, loginTokenName(), deviceUserAgent(), func(da web.DeviceAuthorizationJSON) {
		fmt.Fprintf(a.stderr, "To sign in, open this page in a browser where you can sign in to %s:\n\n"+
			"    %s\n\n"+
			"and check that it shows the code\n\n"+
			"    %s\n\n"+
			"then approve it. (Or open %s and type the code.) The code expires in %d minutes.\n"+
			"Waiting for the approval...\n",
			base, da.VerificationURIComplete, da.UserCode, da.VerificationURI, da.ExpiresIn/60)
	})
	switch core.ErrorCode(err) {
	case "":
	case core.EAccessDenied:
		return fmt.Errorf("the sign-in was denied in the web app; nothing was kept")
	case core.EExpiredToken:
		return fmt.Errorf("the code expired before it was approved: run `sendlater login --server %s --device` again", base)
	default:
		if ctx.Err() != nil {
			return fmt.Errorf("no approval came in %s: run `sendlater login --server %s --device` again", core.DeviceCodeTTL, base)
		}
		return err
	}
	return keepLogin(ctx, a, path, &login{Server: base, Email: g.Email, TokenID: g.Token.ID, TokenName: g.Token.Name,
		TokenCreatedAt: g.Token.CreatedAt, Token: g.Secret}, g.Token.Scopes)
}

// keepLogin saves l, revokes the login it replaces and says so: the end
// of every way login signs in. A login that cannot be saved revokes its
// token.
func keepLogin(ctx context.Context, a *app, path string, l *login, scopes []string) error {
	previous, _, _ := loadLogin()
	if err := saveLogin(path, l); err != nil {
		web.NewAPIClient(l.Server, l.Token, 0).SignOut(context.WithoutCancel(ctx))
		return err
	}
	if previous != nil {
		// One login at a time: the token it replaces is revoked, so
		// none is left behind unused.
		if err := web.NewAPIClient(previous.Server, previous.Token, 0).SignOut(ctx); err != nil && core.ErrorCode(err) != core.EInvalidToken {
			fmt.Fprintf(a.stderr, "The token of the earlier login (%s at %s) could not be revoked: %s\n", previous.Email, previous.Server, core.ErrorMessageOrText(err))
		}
	}
	fmt.Fprintf(a.stdout, "Signed in to %s as %s. The access token %q, which may %s, is kept in %s.\n",
		l.Server, l.Email, l.TokenName, scopeWords(scopes), path)
	return nil
}

// deviceUserAgent names this program and its system as the approval page
// and the new-device email show it ("Sendlater CLI on Linux").
func deviceUserAgent() string {
	v, _, _ := buildVersion()
	system := map[string]string{"linux": "Linux", "darwin": "Mac OS X", "windows": "Windows", "freebsd": "FreeBSD", "openbsd": "OpenBSD"}[runtime.GOOS]
	return fmt.Sprintf("sendlater/%s (%s)", v, cmp(system, runtime.GOOS))
}
