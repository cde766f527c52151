package main

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
)

func newUsersCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "List, show and manage users"}
	cmd.AddCommand(newUsersListCmd(a), newUsersShowCmd(a), newUsersSetPlanCmd(a))
	return cmd
}

// userView is a user as the CLI prints it in --json.
type userView struct {
	ID                       string   `json:"id"`
	Email                    string   `json:"email"`
	Name                     string   `json:"name"`
	Picture                  string   `json:"picture"`
	Timezone                 string   `json:"timezone"`
	Providers                []string `json:"providers"`
	EmailVerified            bool     `json:"emailVerified"`
	Plan                     string   `json:"plan"`
	PlanIsActive             bool     `json:"planIsActive"`
	StripePriceID            string   `json:"stripePriceId"`
	StripeSubscriptionStatus string   `json:"stripeSubscriptionStatus"`
	CreatedAt                string   `json:"createdAt"`
}

func newUserView(u *core.User, prices core.PriceMap) userView {
	s := u.Session(prices)
	return userView{
		ID: u.ID, Email: u.Email, Name: u.Name, Picture: u.Picture, Timezone: u.Timezone,
		Providers: s.Providers, EmailVerified: u.EmailVerified, Plan: string(s.PlanID), PlanIsActive: s.PlanIsActive,
		StripePriceID: u.StripePriceID, StripeSubscriptionStatus: u.StripeSubscriptionStatus,
		CreatedAt: u.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"),
	}
}

func newUsersListCmd(a *app) *cobra.Command {
	var asJSON bool
	var limit, offset int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List users",
		Args:  cobra.NoArgs,
		RunE: a.withAdmin(func(cmd *cobra.Command, args []string, admin core.Admin) error {
			users, total, err := admin.ListUsers(cmd.Context(), core.UserFilter{Offset: offset, Limit: limit})
			if err != nil {
				return err
			}
			views := make([]userView, len(users))
			for i, u := range users {
				views[i] = newUserView(u, a.cfg.prices())
			}
			if asJSON {
				return printJSON(a.stdout, views)
			}
			rows := make([][]string, len(views))
			for i, v := range views {
				plan := v.Plan
				if v.Plan != string(core.PlanStarter) {
					plan += " (" + orDash(v.StripeSubscriptionStatus) + ")"
				}
				rows[i] = []string{v.ID, v.Email, orDash(clip(v.Name, 30)), plan, strconv.FormatBool(v.EmailVerified), v.CreatedAt}
			}
			if err := printTable(a.stdout, []string{"ID", "EMAIL", "NAME", "PLAN", "VERIFIED", "CREATED"}, rows); err != nil {
				return err
			}
			a.sayf("%d of %d users", len(users), total)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVar(&limit, "limit", 0, "list at most this many (0: all)")
	cmd.Flags().IntVar(&offset, "offset", 0, "skip this many")
	return cmd
}

func newUsersShowCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID|EMAIL",
		Short: "Show one user",
		Args:  cobra.ExactArgs(1),
		RunE: a.withAdmin(func(cmd *cobra.Command, args []string, admin core.Admin) error {
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

func (a *app) printUser(u *core.User, asJSON bool) error {
	v := newUserView(u, a.cfg.prices())
	if asJSON {
		return printJSON(a.stdout, v)
	}
	return printFields(a.stdout, [][2]string{
		{"ID", v.ID}, {"Email", v.Email}, {"Email verified", strconv.FormatBool(v.EmailVerified)},
		{"Name", orDash(v.Name)}, {"Picture", orDash(v.Picture)}, {"Time zone", orDash(v.Timezone)},
		{"Sign-in", orDash(strings.Join(v.Providers, ", "))}, {"Plan", v.Plan},
		{"Plan active", strconv.FormatBool(v.PlanIsActive)}, {"Stripe price", orDash(v.StripePriceID)},
		{"Subscription", orDash(v.StripeSubscriptionStatus)}, {"Created", v.CreatedAt},
	})
}

func newUsersSetPlanCmd(a *app) *cobra.Command {
	var status string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "set-plan ID|EMAIL starter|pro|business",
		Short: "Grant a plan without Stripe",
		Long: "Grant a plan without Stripe. The user's plan becomes active with --status active (the default)\n" +
			"or trialing; any other status leaves it inactive. Granting starter removes any plan.",
		Args: cobra.ExactArgs(2),
		RunE: a.withAdmin(func(cmd *cobra.Command, args []string, admin core.Admin) error {
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
