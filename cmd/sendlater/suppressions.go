package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

// newSuppressionsCmd is `sendlater suppressions`: the addresses that
// complained (marked an email as spam) and get nothing more from this
// service (issue 31). Both commands are audited.
func newSuppressionsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "suppressions", Short: "The addresses that complained and get no more email"}
	cmd.AddCommand(newSuppressionsListCmd(a), newSuppressionsRemoveCmd(a))
	return cmd
}

func newSuppressionsListCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the suppressed addresses, newest first (audited)",
		Args:  cobra.NoArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminSuppressions) error {
			l, err := admin.ListSuppressions(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, each(l, web.NewSuppressionJSON))
			}
			rows := make([][]string, len(l))
			for i, sp := range l {
				rows[i] = []string{sp.Address, cli.When(sp.At), cli.Clip(oneLine(sp.Reason), 60)}
			}
			return cli.PrintTable(a.stdout, []string{"ADDRESS", "SINCE", "REASON"}, rows)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newSuppressionsRemoveCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "remove ADDRESS",
		Short: "Let a suppressed address receive email again (audited)",
		Args:  cobra.ExactArgs(1),
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminSuppressions) error {
			if err := admin.RemoveSuppression(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s removed from the suppression list: it may receive email from this service again.\n", args[0])
			return nil
		}),
	}
}
