package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/internal/cli"
)

func newMigrateCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Show or apply the store's schema migrations (PostgreSQL)",
		Long: "A PostgreSQL store's schema is versioned: every sendlater applies the pending migrations when it\n" +
			"starts, under a lock, so replicas starting at once migrate once. `migrate up` applies them ahead\n" +
			"of a rollout; `migrate status` shows which ran. Neither needs the encryption key.\n" +
			"A bbolt store migrates itself when opened.",
	}
	cmd.AddCommand(newMigrateListCmd(a, "status", "List every migration and when it was applied", false),
		newMigrateListCmd(a, "up", "Apply the pending migrations", true))
	return cmd
}

func newMigrateListCmd(a *app, use, short string, up bool) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d := a.driver()
			if d.migrations == nil {
				return fmt.Errorf("store.driver %s: the store migrates itself when opened; migrate is for a store with versioned migrations (postgres)", a.cfg.Store.Driver)
			}
			ms, err := d.migrations(cmd.Context(), d.where(a.cfg), up)
			if err != nil {
				return err
			}
			if up {
				for _, m := range ms {
					fmt.Fprintf(a.stdout, "applied %04d %s\n", m.version, m.name)
				}
				fmt.Fprintf(a.stdout, "the schema is up to date (%d migrations applied now)\n", len(ms))
				return nil
			}
			rows := make([][]string, len(ms))
			for i, m := range ms {
				applied := "pending"
				if !m.appliedAt.IsZero() {
					applied = cli.When(m.appliedAt)
				}
				rows[i] = []string{strconv.Itoa(m.version), m.name, applied}
			}
			return cli.PrintTable(a.stdout, []string{"VERSION", "NAME", "APPLIED"}, rows)
		},
	}
}
