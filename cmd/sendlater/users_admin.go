package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

// The operator's account commands: users create|disable|enable|delete|export.
// Each change is written to the audit log (sendlater audit list).

// localActor names the OS user running this command, the audit log's who
// when the command opened the store itself.
func localActor() string {
	if uid := os.Getuid(); uid >= 0 {
		return web.OSUserName(uint32(uid))
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "unknown"
}

func newUsersCreateCmd(a *app) *cobra.Command {
	var name string
	var passwordStdin, asJSON bool
	cmd := &cobra.Command{
		Use:   "create EMAIL",
		Short: "Create a user: prints a one-time link to choose a password, or takes one from stdin",
		Long: "Create a user. Without --password-stdin it prints a one-time link (valid for one hour) with\n" +
			"which the user chooses a password, then signs in with it; send it to them. With --password-stdin the\n" +
			"first line of standard input is the password (the sign-up rules apply).",
		Args: useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminUsers) error {
			in := core.NewUser{Email: args[0], Name: name}
			if passwordStdin {
				line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
				if err != nil && err != io.EOF {
					return err
				}
				if in.Password = strings.TrimRight(line, "\r\n"); in.Password == "" {
					return usagef("--password-stdin: standard input holds no password")
				}
			}
			c, err := admin.CreateUser(cmd.Context(), in)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, web.CreatedUserJSON{User: web.NewUserJSON(c.User, a.cfg.prices()), Link: c.Link})
			}
			fmt.Fprintf(a.stdout, "Created the user %s (id %s).\n", c.User.Email, c.User.ID)
			if c.Link != "" {
				fmt.Fprintf(a.stdout, "Send them this one-time link to choose a password (valid for %d minutes):\n%s\n", int(core.ResetCodeTTL.Minutes()), c.Link)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&name, "name", "", "the user's name")
	cmd.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password from the first line of standard input")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newUsersSetDisabledCmd(a *app, disabled bool) *cobra.Command {
	use, short := "enable ID|EMAIL", "Enable a disabled user: sign-in works again and the held messages resume"
	if disabled {
		use, short = "disable ID|EMAIL", "Disable a user: signed out everywhere, sign-in refused, messages held paused"
	}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminUsers) error {
			u, err := admin.SetUserDisabled(cmd.Context(), args[0], disabled)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, web.NewUserJSON(u, a.cfg.prices()))
			}
			if disabled {
				fmt.Fprintf(a.stdout, "%s is disabled: signed out everywhere, sign-in refused, %d messages held paused until enabled.\n",
					u.Email, len(u.HeldMessages))
			} else {
				fmt.Fprintf(a.stdout, "%s is enabled: sign-in works again and the messages held paused were resumed.\n", u.Email)
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newUsersResetSecondFactorCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reset-2fa ID|EMAIL",
		Short: "Remove a user's authenticator app and recovery codes (audited; the user is emailed)",
		Long: "Remove a user's authenticator app and recovery codes, so that the password or a provider alone\n" +
			"signs in: the recovery path for a user who lost both. Check who asks before you run it. The act is\n" +
			"written to the audit log and the user is emailed.",
		Args: useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminUsers) error {
			u, err := admin.ResetSecondFactor(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, web.NewUserJSON(u, a.cfg.prices()))
			}
			fmt.Fprintf(a.stdout, "%s has no second factor now: the password or a provider alone signs in. They were emailed.\n", u.Email)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newUsersDeleteCmd(a *app) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "delete ID|EMAIL --yes",
		Short: "Delete a user with every message, session and access token (cannot be undone)",
		Args:  useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminUsers) error {
			if !yes {
				return usagef("deleting %s cannot be undone: add --yes to confirm", args[0])
			}
			if err := admin.DeleteUser(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Deleted the user %s with their messages, sessions and access tokens.\n", args[0])
			return nil
		}),
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm the deletion")
	return cmd
}

func newUsersExportCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "export ID|EMAIL",
		Short: "Print everything stored about a user as JSON (the user's own export)",
		Args:  useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminUsers) error {
			x, err := admin.ExportUser(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return cli.PrintJSON(a.stdout, web.NewAccountExportJSON(x))
		}),
	}
}

// disabledText is what users show says of an account's state.
func disabledText(u *core.User) string {
	if !u.Disabled() {
		return "no"
	}
	return fmt.Sprintf("yes, since %s: sign-in refused, %d messages held paused until enabled",
		cli.When(u.DisabledAt), len(u.HeldMessages))
}
