package main

import (
	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

func newUsersSyncBillingCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sync-billing [ID|EMAIL]",
		Short: "Re-read subscriptions from Stripe and print what changed",
		Long: "Re-read from Stripe the subscriptions of one user, or of every user with a Stripe customer,\n" +
			"store each user's current price and status, and print them beside what was stored before.\n" +
			"It stops at the first failure. Webhooks do this as events arrive; this is for a missed one.",
		Args: useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminBilling) error {
			who := ""
			if len(args) == 1 {
				who = args[0]
			}
			changes, err := admin.SyncBilling(cmd.Context(), who)
			if err != nil {
				return err
			}
			rows := make([][]string, len(changes))
			views := make([]web.BillingChangeJSON, len(changes))
			changed := 0
			for i, c := range changes {
				views[i] = web.NewBillingChangeJSON(c)
				what := "unchanged"
				if c.Changed() {
					what, changed = "changed", changed+1
				}
				rows[i] = []string{
					c.Email, c.CustomerID, planState(c.OldPlan, c.OldStatus, c.OldPlanActive),
					planState(c.Plan, c.Status, c.PlanActive), what,
				}
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, views)
			}
			if err := cli.PrintTable(a.stdout, []string{"EMAIL", "CUSTOMER", "BEFORE", "NOW", ""}, rows); err != nil {
				return err
			}
			a.sayf("%d users read from Stripe, %d changed", len(changes), changed)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// planState is a plan as the tables show it: "pro (active)", "pro
// (canceled, inactive)", "starter".
func planState(plan core.PlanID, status string, active bool) string {
	if status == "" {
		return string(plan)
	}
	if !active {
		status += ", inactive"
	}
	return string(plan) + " (" + status + ")"
}
