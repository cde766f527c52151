package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

func newUsersCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "List, show and manage users"}
	cmd.AddCommand(newUsersListCmd(a), newUsersShowCmd(a), newUsersSetPlanCmd(a), newUsersSyncBillingCmd(a),
		newUsersCreateCmd(a), newUsersSetDisabledCmd(a, true), newUsersSetDisabledCmd(a, false),
		newUsersResetSecondFactorCmd(a), newUsersDeleteCmd(a), newUsersExportCmd(a), newUsersLiftHoldCmd(a))
	return cmd
}

func newUsersListCmd(a *app) *cobra.Command {
	var asJSON bool
	var limit, offset int
	var plan string
	cmd := &cobra.Command{
		Use:   "list [--plan starter|pro|business]",
		Short: "List users",
		Args:  cobra.NoArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminUsers) error {
			f := core.UserFilter{Offset: offset, Limit: limit}
			if plan != "" {
				if _, ok := core.FindPlan(core.PlanID(plan)); !ok {
					return usagef("--plan must be starter, pro or business")
				}
				// The plan is derived from the subscription: filtered here,
				// then paged.
				f = core.UserFilter{}
			}
			users, total, err := admin.ListUsers(cmd.Context(), f)
			if err != nil {
				return err
			}
			var views []*web.UserJSON
			if plan != "" {
				var kept []*core.User
				for _, u := range users {
					if v := web.NewUserJSON(u, a.cfg.prices()); string(v.Plan) == plan {
						kept = append(kept, u)
					}
				}
				total = len(kept)
				users = page(kept, offset, limit)
			}
			views = make([]*web.UserJSON, len(users))
			for i, u := range users {
				views[i] = web.NewUserJSON(u, a.cfg.prices())
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, views)
			}
			rows := make([][]string, len(users))
			for i, u := range users {
				plan := string(views[i].Plan)
				if views[i].Plan != core.PlanStarter {
					plan += " (" + cli.OrDash(u.StripeSubscriptionStatus) + ")"
				}
				rows[i] = []string{u.ID, u.Email, cli.OrDash(cli.Clip(u.Name, 30)), plan, strconv.FormatBool(u.EmailVerified), created(u)}
			}
			if err := cli.PrintTable(a.stdout, []string{"ID", "EMAIL", "NAME", "PLAN", "VERIFIED", "CREATED"}, rows); err != nil {
				return err
			}
			a.sayf("%d of %d users", len(users), total)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVar(&limit, "limit", 0, "list at most this many (0: all)")
	cmd.Flags().IntVar(&offset, "offset", 0, "skip this many")
	cmd.Flags().StringVar(&plan, "plan", "", "only users on this plan, as the PLAN column shows it")
	return cmd
}

// page is xs from offset, at most limit of them (0: all).
func page[T any](xs []T, offset, limit int) []T {
	xs = xs[min(offset, len(xs)):]
	if limit > 0 && limit < len(xs) {
		xs = xs[:limit]
	}
	return xs
}

func newUsersShowCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID|EMAIL",
		Short: "Show one user",
		Args:  useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminUsers) error {
			u, err := admin.FindUser(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.printUser(u, asJSON)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// created is when u signed up, as the tables show it.
func created(u *core.User) string { return cli.When(u.CreatedAt) }

func (a *app) printUser(u *core.User, asJSON bool) error {
	v := web.NewUserJSON(u, a.cfg.prices())
	if asJSON {
		return cli.PrintJSON(a.stdout, v)
	}
	return cli.PrintFields(a.stdout, [][2]string{
		{"ID", u.ID}, {"Email", u.Email}, {"Email verified", strconv.FormatBool(u.EmailVerified)},
		{"Name", cli.OrDash(u.Name)}, {"Picture", cli.OrDash(u.Picture)}, {"Time zone", cli.OrDash(u.Timezone)},
		{"Sign-in", cli.OrDash(strings.Join(v.Providers, ", "))}, {"Plan", string(v.Plan)},
		{"Plan active", strconv.FormatBool(v.PlanIsActive)}, {"Stripe customer", cli.OrDash(u.StripeCustomerID)},
		{"Stripe price", cli.OrDash(u.StripePriceID)}, {"Subscription", cli.OrDash(u.StripeSubscriptionStatus)},
		{"Disabled", disabledText(u)}, {"Created", created(u)}, {"Hold", holdText(u, time.Now())},
		{"Reminder ladder", ladderText(u.ReminderLadder.Names())}, {"Also reminded", a.reminderAddressText(u)},
		{"Second factor", secondFactorText(u)},
	})
}

// secondFactorText is the user's second factor as users show prints it.
func secondFactorText(u *core.User) string {
	if !u.HasSecondFactor() {
		return "- (password or provider alone)"
	}
	return fmt.Sprintf("authenticator app since %s; %d recovery codes left", cli.When(u.TOTPEnabledAt), len(u.RecoveryCodes))
}

// ladderText is the user's reminder steps as users show prints them.
func ladderText(steps []string) string {
	if len(steps) == 0 {
		return "- (the 10-day reminder only)"
	}
	return strings.Join(steps, ", ") + " (after the 10-day reminder)"
}

// reminderAddressText is the user's second reminder address, and whether
// their plan lets it be used now and it confirmed it wants the reminders
// (a refusal shows in the timeline's entries of the copies).
func (a *app) reminderAddressText(u *core.User) string {
	if u.ReminderAddress == "" {
		return "-"
	}
	if plan, active := a.cfg.prices().PlanOf(u); !core.ReminderAddressAllowed(plan, active) {
		return u.ReminderAddress + " (not used: the plan does not include it)"
	}
	if !u.ReminderAddressConfirmed() {
		return u.ReminderAddress + " (not used: waiting for it to confirm)"
	}
	return u.ReminderAddress
}

// holdText is the user's hold as users show prints it.
func holdText(u *core.User, now time.Time) string {
	switch {
	case u.HoldUntil.IsZero():
		return "-"
	case u.HeldAt(now):
		return "on hold until " + cli.When(u.HoldUntil) + " (since " + cli.When(u.HoldSince) + "; users lift-hold ends it)"
	}
	return "- (the last ended " + cli.When(u.HoldUntil) + ")"
}

func newUsersLiftHoldCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "lift-hold ID|EMAIL",
		Short: "End a user's hold now",
		Long: "End a user's hold (\"pause all my messages until\") now, as the author's \"End hold\" does:\n" +
			"each message the hold kept back gets a fresh reminder cycle from now (the reminder now,\n" +
			"the delivery 10 days later), never an immediate delivery.",
		Args: useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminUsers) error {
			u, err := admin.LiftHold(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.printUser(u, asJSON)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newUsersSetPlanCmd(a *app) *cobra.Command {
	var status string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "set-plan ID|EMAIL starter|pro|business",
		Short: "Grant a plan without Stripe",
		Long: "Grant a plan without Stripe. The user's plan becomes active with --status active (the default)\n" +
			"or trialing; any other status leaves it inactive. Granting starter removes any plan.",
		Args: useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminUsers) error {
			u, err := admin.SetPlan(cmd.Context(), args[0], core.PlanID(args[1]), status)
			if err != nil {
				return err
			}
			return a.printUser(u, asJSON)
		}),
	}
	cmd.Flags().StringVar(&status, "status", "active", "subscription status to record")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
