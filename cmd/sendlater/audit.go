package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

func newAuditCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "The audit log of what operators changed and revealed"}
	cmd.AddCommand(newAuditListCmd(a))
	return cmd
}

func newAuditListCmd(a *app) *cobra.Command {
	var asJSON bool
	var since string
	var limit int
	cmd := &cobra.Command{
		Use:   "list [--since TIME]",
		Short: "List the audit log, oldest first: when, who (OS user), what",
		Args:  cobra.NoArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminAudit) error {
			var from time.Time
			if since != "" {
				var err error
				if from, err = cli.ParseSince(since, time.Now()); err != nil {
					return usageError{err}
				}
			}
			es, err := admin.ListAudit(cmd.Context(), from, limit)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, each(es, web.NewAuditEntryJSON))
			}
			rows := make([][]string, len(es))
			for i, e := range es {
				rows[i] = []string{cli.When(e.At), e.Actor, e.Action, cli.OrDash(e.Target), cli.OrDash(e.Detail)}
			}
			return cli.PrintTable(a.stdout, []string{"WHEN", "WHO", "ACTION", "TARGET", "DETAIL"}, rows)
		}),
	}
	cmd.Flags().StringVar(&since, "since", "", "only entries from this time (TIME: RFC 3339, \"2026-04-01 09:30\" (UTC), 2026-04-01, now, +30d, +36h, -24h; 7d is 7 days ago)")
	cmd.Flags().IntVar(&limit, "limit", 0, "list at most this many (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// each maps xs through f.
func each[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// oneLine is s with its line breaks as spaces, for a table cell.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
