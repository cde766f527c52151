package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

// A login is a personal access token of a user on a server, kept with the
// server's address in the user's config directory (mode 0600): what `tui`
// uses without --user, `whoami` shows and `logout` revokes.
type login struct {
	Server  string `json:"server"`
	Email   string `json:"email"`
	TokenID string `json:"tokenId"`
	// TokenName and TokenCreatedAt are how the web app's list (Settings,
	// General, Access tokens) shows the token; empty in logins saved before
	// they were kept.
	TokenName      string    `json:"tokenName,omitempty"`
	TokenCreatedAt time.Time `json:"tokenCreatedAt,omitzero"`
	Token          string    `json:"token"`
}

// tokenAsListed names the login's token as the web app's list shows it: its
// name and when it was made, which tell it from a later login's token of the
// same name. A login saved before those were kept gives the name login
// would have given it on this machine.
func (l *login) tokenAsListed() string {
	if l.TokenName == "" {
		return fmt.Sprintf("%q (probably; its id is %s)", loginTokenName(), l.TokenID)
	}
	return fmt.Sprintf("%q (made on %s)", l.TokenName, cli.When(l.TokenCreatedAt))
}

// loginTokenName is the name login gives the access token it makes on this
// machine.
func loginTokenName() string {
	host, _ := os.Hostname()
	return "sendlater on " + cmp(host, "this machine")
}

// loginScopes are the scopes login asks for: what the TUI needs to read and
// write messages, and not the account (profile, tokens, export, billing),
// which the web app keeps.
var loginScopes = []string{core.ScopeMessagesRead, core.ScopeMessagesWrite}

// configDir is where a person's sendlater files are: the OS's config
// directory (XDG_CONFIG_HOME, ~/.config, ...) /sendlater.
func configDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory to keep the login in: %w", err)
	}
	return filepath.Join(dir, "sendlater"), nil
}

func loginPath() (string, error) {
	dir, err := configDir()
	return filepath.Join(dir, "login.json"), err
}

var errNoLogin = errors.New("not signed in: run `sendlater login --server URL` first")

func loadLogin() (*login, string, error) {
	path, err := loginPath()
	if err != nil {
		return nil, "", err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, path, errNoLogin
	}
	if err != nil {
		return nil, path, err
	}
	var l login
	if err := json.Unmarshal(b, &l); err != nil || l.Server == "" || l.Token == "" {
		return nil, path, fmt.Errorf("the login in %s cannot be read: run `sendlater login` again", path)
	}
	return &l, path, nil
}

func saveLogin(path string, l *login) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// serverURL checks the --server address: http or https, a host, no path.
func serverURL(s string) (string, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(s), "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return "", fmt.Errorf("--server: want the server's address, http(s)://host[:port], got %q", s)
	}
	return u.String(), nil
}

func newLoginCmd(a *app) *cobra.Command {
	var server, email string
	var passwordStdin, device bool
	cmd := &cobra.Command{
		Use:   "login --server URL [--device]",
		Short: "Sign in to a server and keep a personal access token for the TUI",
		Long: "Signs in with your email and password (read without echo, or from stdin with --password-stdin),\n" +
			"then, when the account has an authenticator app, its code or a recovery code (asked, or stdin's\n" +
			"next line with --password-stdin),\n" +
			"creates a personal access token named after this machine, and keeps it with the server's address\n" +
			"in your config directory (mode 0600). `sendlater tui` then works from this machine.\n\n" +
			"The token may read and write your messages (scopes messages:read and messages:write), what the\n" +
			"TUI needs; it may not change your account (profile, access tokens, export, billing).\n\n" +
			"With --device nothing is typed here: login prints a short code and a URL, you approve the code in\n" +
			"the web app (signed in there with a passkey, a provider or a password, and its second factor), and\n" +
			"login gets the same token. Use it for an account without a password, or to type no password in a\n" +
			"terminal.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, err := serverURL(server)
			if err != nil {
				return err
			}
			path, err := loginPath()
			if err != nil {
				return err
			}
			if device {
				if email != "" || passwordStdin {
					return errors.New("--device: the web app signs you in, so --email and --password-stdin do not go with it")
				}
				return deviceLogin(cmd.Context(), a, base, path)
			}
			in := bufio.NewReader(cmd.InOrStdin())
			if email == "" {
				if passwordStdin {
					return errors.New("--email: needed with --password-stdin (stdin holds the password)")
				}
				fmt.Fprint(a.stderr, "Email: ")
				line, err := in.ReadString('\n')
				if err != nil && line == "" {
					return errors.New("no email given: pass --email or type it")
				}
				email = strings.TrimSpace(line)
			}
			password, err := readPassword(a, in, passwordStdin)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			askCode := func(methods []string) (string, error) {
				// With --password-stdin the code is stdin's next line.
				if !passwordStdin {
					fmt.Fprint(a.stderr, "Code from your authenticator app (or a recovery code): ")
				}
				line, err := in.ReadString('\n')
				if err != nil && line == "" {
					return "", errors.New("this account asks for a code from an authenticator app: none given")
				}
				return strings.TrimSpace(line), nil
			}
			session, err := web.SignInWithCode(ctx, base, email, password, 0, askCode)
			if core.ErrorCode(err) == core.EWrongCredentials {
				// The server does not say whether the account has a
				// password (no one may learn which accounts do).
				return fmt.Errorf("%s If your account signs in with a passkey or a provider, run `sendlater login --server %s --device`", core.ErrorMessageOrText(err), base)
			}
			if err != nil {
				return err
			}
			// The session only makes the token; signing it out leaves the
			// token alone.
			defer session.SignOut(context.WithoutCancel(ctx))
			info, secret, err := session.CreateAccessToken(ctx, loginTokenName(), loginScopes)
			if err != nil {
				return err
			}
			return keepLogin(ctx, a, path, &login{Server: base, Email: email, TokenID: info.ID, TokenName: info.Name,
				TokenCreatedAt: info.CreatedAt, Token: secret}, info.Scopes)
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "the server's address, e.g. https://sendlater.example (required)")
	cmd.Flags().StringVar(&email, "email", "", "your email address (asked when not given)")
	cmd.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password from stdin (for scripts)")
	cmd.Flags().BoolVar(&device, "device", false, "sign in by approving a code in the web app (a passkey, a provider, no password typed here)")
	cmd.MarkFlagRequired("server")
	return cmd
}

// readPassword reads the password from stdin (--password-stdin: its first
// line) or from the terminal without echo; never from a pipe otherwise.
func readPassword(a *app, in *bufio.Reader, fromStdin bool) (string, error) {
	if fromStdin {
		line, err := in.ReadString('\n')
		if err != nil && err != io.EOF {
			return "", err
		}
		if p := strings.TrimRight(line, "\r\n"); p != "" {
			return p, nil
		}
		return "", errors.New("--password-stdin: stdin held no password")
	}
	fd := os.Stdin.Fd()
	if !term.IsTerminal(fd) {
		return "", errors.New("stdin is not a terminal, so the password cannot be read without echo: use --password-stdin, or --device to approve the sign-in in the web app")
	}
	fmt.Fprint(a.stderr, "Password: ")
	b, err := term.ReadPassword(fd)
	fmt.Fprintln(a.stderr)
	return string(b), err
}

func cmp(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

func newLogoutCmd(a *app) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "logout",
		Short: "Revoke the kept access token on its server and forget it",
		Long: `Revoke the kept access token on its server and forget it.

When the server cannot be reached, the login is kept so that logout can be
run again. --force forgets it even then; the token may then still be valid
on the server until it is revoked there: a password change in the web app
(Settings, Password) revokes every access token of the account.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, path, err := loadLogin()
			if err != nil {
				return err
			}
			c := web.NewAPIClient(l.Server, l.Token, 0)
			revokeErr := c.SignOut(cmd.Context())
			unrevoked := revokeErr != nil && core.ErrorCode(revokeErr) != core.EInvalidToken
			if unrevoked && !force {
				// Said whole: the error printer would show only a core.Error inside.
				return fmt.Errorf("the token could not be revoked, so the login is kept (run logout again once the server answers, or logout --force to forget it anyway): %s", errorText(revokeErr))
			}
			if err := os.Remove(path); err != nil {
				return err
			}
			switch {
			case unrevoked:
				site := strings.TrimSuffix(l.Server, "/")
				fmt.Fprintf(a.stdout, "Forgot the login for %s at %s (%s removed), but the token could not be revoked: %s\n"+
					"The token %s may still be valid on the server. Revoke it in the web app's access tokens "+
					"(%s/settings/general), or change your password there (%s/settings/password), which revokes "+
					"every access token of the account.\n",
					l.Email, l.Server, path, core.ErrorMessageOrText(revokeErr), l.tokenAsListed(), site, site)
			case revokeErr != nil:
				fmt.Fprintf(a.stdout, "The token was revoked already. Signed out of %s.\n", l.Server)
			default:
				fmt.Fprintf(a.stdout, "Signed out of %s: the token is revoked and %s removed.\n", l.Server, path)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "forget the login even when the server cannot be reached to revoke the token")
	return cmd
}

func newWhoamiCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "whoami",
		Short: "Show who the kept login signs in as, and where",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, _, err := loadLogin()
			if err != nil {
				return err
			}
			u, err := web.NewAPIClient(l.Server, l.Token, 0).Me(cmd.Context())
			if err != nil {
				return fmt.Errorf("%s (the login is for %s at %s)", core.ErrorMessageOrText(err), l.Email, l.Server)
			}
			plan := "Free"
			if p, ok := core.FindPlan(u.PlanID); ok && u.PlanIsActive {
				plan = p.Name
			}
			fmt.Fprintf(a.stdout, "%s (%s) at %s, on the %s plan\n", u.Email, cmp(u.Name, "no name"), l.Server, plan)
			return nil
		},
	}
}

// scopeWords says what a token with scopes may do, as login tells it.
func scopeWords(scopes []string) string {
	var read, write, account bool
	for _, s := range scopes {
		switch s {
		case core.ScopeMessagesRead:
			read = true
		case core.ScopeMessagesWrite:
			write = true
		case core.ScopeAccount:
			account = true
		}
	}
	var w string
	switch {
	case read && write:
		w = "read and write your messages (messages:read, messages:write)"
	case read:
		w = "read your messages (messages:read)"
	case write:
		w = "write your messages (messages:write)"
	default:
		w = "not touch your messages"
	}
	if account {
		return w + " and change your account (account)"
	}
	return w + " but not change your account"
}
