package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

// adminService returns the operator's view of the store: through the running
// server's admin socket when one answers and holds the store alone, else the
// services over the store opened directly (always for a shared store, which
// every process uses at once). The returned func releases what was opened.
func (a *app) adminService(ctx context.Context) (core.Admin, func() error, error) {
	c, s, done, err := a.operatorView(ctx)
	if err != nil || c != nil {
		return c, done, err
	}
	return s.Admin, done, nil
}

// operatorView is the admin socket's client when a server answers on it
// and holds the store alone; else (client nil) the services over the store
// opened directly. done releases what was opened.
func (a *app) operatorView(ctx context.Context) (client *web.AdminClient, s *services, done func() error, err error) {
	shared := a.driver().shared
	if !shared {
		if c, err := web.DialAdmin(a.cfg.socketPath()); err == nil {
			a.sayf("using the running server through its admin socket %s", a.cfg.socketPath())
			return c, nil, func() error { return nil }, nil
		}
	}
	// The audit log's who, when no server's socket tells it.
	a.actor = localActor()
	st, key, err := a.openStore(ctx, openExisting)
	if err != nil {
		return nil, nil, nil, err
	}
	if shared {
		a.sayf("store.driver %s: talking to the database directly", a.cfg.Store.Driver)
	} else {
		a.sayf("no server answers on %s: opened the store %s directly", a.cfg.socketPath(), a.cfg.storePath())
	}
	s, closeServices, err := a.build(st, key)
	if err != nil {
		st.Close()
		return nil, nil, nil, err
	}
	done = func() error {
		closeServices()
		return st.Close()
	}
	return nil, s, done, nil
}

// withAdmin makes a command's RunE from fn, which gets the operator's view
// of the store (adminService) in the role R the command names (core.AdminUsers,
// core.AdminMessages, core.AdminDelivery, core.AdminBilling, core.AdminAudit,
// or core.Admin for several), released when fn returns.
func withAdmin[R any](a *app, fn func(cmd *cobra.Command, args []string, admin R) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		admin, done, err := a.adminService(cmd.Context())
		if err != nil {
			return err
		}
		defer done()
		if a.actor != "" {
			cmd.SetContext(core.WithOperator(cmd.Context(), a.actor))
		}
		// core.Admin embeds every role, so this holds for each of them.
		return fn(cmd, args, any(admin).(R))
	}
}
