package main

import (
	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

func newContactsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "contacts", Short: "The contact form's submissions"}
	cmd.AddCommand(newContactsListCmd(a))
	return cmd
}

func newContactsListCmd(a *app) *cobra.Command {
	var asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the contact form's submissions, newest first",
		Args:  cobra.NoArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminUsers) error {
			cs, err := admin.ListContacts(cmd.Context(), limit)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, each(cs, web.NewContactJSON))
			}
			rows := make([][]string, len(cs))
			for i, c := range cs {
				rows[i] = []string{c.ID, cli.When(c.CreatedAt), cli.OrDash(cli.Clip(c.Name, 24)), c.Email, cli.Clip(oneLine(c.Message), 50)}
			}
			return cli.PrintTable(a.stdout, []string{"ID", "RECEIVED", "NAME", "EMAIL", "MESSAGE"}, rows)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (the whole messages)")
	cmd.Flags().IntVar(&limit, "limit", 0, "list at most this many (0: all)")
	return cmd
}
