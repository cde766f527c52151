package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/tui"
	"github.com/sendlater/sendlater/web"
)

func newTUICmd(a *app) *cobra.Command {
	var asUser, server string
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Write, postpone and steer your messages in the terminal",
		Long: "Without --user: your messages on the server of `sendlater login` (--server picks another\n" +
			"address for the same token). With --user EMAIL, on the server's host: that user's messages,\n" +
			"through the running server's admin socket, or the store directly when no server runs.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, done, err := a.tuiConfig(cmd.Context(), asUser, server)
			if err != nil {
				return err
			}
			defer done()
			_, err = tea.NewProgram(tui.New(cfg), tea.WithContext(cmd.Context())).Run()
			return err
		},
	}
	cmd.Flags().StringVar(&asUser, "user", "", "act for this user (email or id) on the server's host, as an operator")
	cmd.Flags().StringVar(&server, "server", "", "the server's address (default: the one of `sendlater login`)")
	return cmd
}

// tuiConfig picks the implementation the app runs on: remote with the kept
// login, or for --user the admin socket of the running server, else the
// store (the rule of every admin command).
func (a *app) tuiConfig(ctx context.Context, asUser, server string) (tui.Config, func(), error) {
	nothing := func() {}
	if asUser == "" {
		l, _, err := loadLogin()
		if err != nil {
			return tui.Config{}, nil, err
		}
		if server != "" {
			if l.Server, err = serverURL(server); err != nil {
				return tui.Config{}, nil, err
			}
		}
		c := web.NewAPIClient(l.Server, l.Token, 0).Through(core.ChannelTUI)
		emails, err := mailer.NewTemplates(a.cfg.AppName, l.Server)
		if err != nil {
			return tui.Config{}, nil, err
		}
		cfg := tui.Config{Messages: c, Account: c, Files: tuiFiles{c}, Ctx: ctx, Emails: emails, Where: l.Server}
		return a.withDraft(cfg, l.Server, l.Email), nothing, nil
	}
	emails, err := mailer.NewTemplates(a.cfg.AppName, a.cfg.BaseURL)
	if err != nil {
		return tui.Config{}, nil, err
	}
	if !a.driver().shared {
		if admin, err := web.DialAdmin(a.cfg.socketPath()); err == nil {
			c := admin.As(asUser).Through(core.ChannelTUI)
			me, err := c.Me(ctx)
			if err != nil {
				return tui.Config{}, nil, err
			}
			cfg := tui.Config{Messages: c, Account: c, Files: tuiFiles{c}, Ctx: ctx, Emails: emails, Where: "the server's admin socket"}
			return a.withDraft(cfg, a.cfg.storePath(), me.UID), nothing, nil
		}
	}
	st, key, err := a.openStore(ctx, openExisting)
	if err != nil {
		return tui.Config{}, nil, err
	}
	s, release, err := a.build(st, key)
	if err != nil {
		st.Close()
		return tui.Config{}, nil, err
	}
	done := func() {
		release()
		st.Close()
	}
	u, err := s.Admin.FindUser(ctx, asUser)
	if err != nil {
		done()
		return tui.Config{}, nil, err
	}
	// The operator is the OS user, as for every admin command on the store;
	// what they do and read for the user goes to the audit log.
	acting := core.WithChannel(core.ActAs(core.WithOperator(ctx, localActor()), u.ID), core.ChannelTUI)
	cfg := tui.Config{Messages: s.Operator.AuthorMessages(), Account: s.Operator.AuthorAccount(), Ctx: acting,
		Files: tuiFiles{web.LocalFiles{Files: s.Operator.AuthorFiles()}}, Emails: s.Emails, Where: "the store " + a.cfg.storePath()}
	return a.withDraft(cfg, a.cfg.storePath(), u.ID), done, nil
}

// withDraft keeps the unsent draft in the config directory, one file per
// place (a server's address, or the store, whether reached through the
// socket or directly) and user, so that a draft is offered only there.
func (a *app) withDraft(cfg tui.Config, where, who string) tui.Config {
	if dir, err := configDir(); err == nil {
		sum := sha256.Sum256([]byte(where + "\x00" + who))
		cfg.DraftPath = filepath.Join(dir, "drafts", hex.EncodeToString(sum[:8])+".json")
	}
	return cfg
}
