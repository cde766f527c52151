package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

func newSendDueCmd(a *app) *cobra.Command {
	var dryRun, asJSON bool
	var at string
	cmd := &cobra.Command{
		Use:   "send-due",
		Short: "Run one delivery pass: due messages, reminders and webhooks (for cron)",
		Long: "Runs the same pass as the server's scheduler, through the running server's admin socket when one\n" +
			"answers, else over the store opened directly. It prints what it did and exits non-zero when the store\n" +
			"or the mail server cannot be reached. --dry-run lists what a pass would send (by --at) and sends nothing.",
		Args: cobra.NoArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminDelivery) error {
			if at != "" && !dryRun {
				return usagef("--at only goes with --dry-run: a real pass always runs at the current time")
			}
			if dryRun {
				by := time.Now()
				if at != "" {
					var err error
					if by, err = cli.ParseWhen(at, by); err != nil {
						return usageError{fmt.Errorf("--at: %w", err)}
					}
				}
				due, err := admin.PreviewDue(cmd.Context(), by)
				if err != nil {
					return err
				}
				if asJSON {
					out := make([]web.DueSendJSON, len(due))
					for i, d := range due {
						out[i] = web.NewDueSendJSON(d)
					}
					return cli.PrintJSON(a.stdout, out)
				}
				rows := make([][]string, len(due))
				for i, p := range due {
					rows[i] = []string{p.Kind, p.MessageID, p.To, cli.When(p.DueAt)}
				}
				if err := cli.PrintTable(a.stdout, []string{"KIND", "MESSAGE", "TO", "DUE"}, rows); err != nil {
					return err
				}
				fmt.Fprintf(a.stderr, "dry run: %d emails would be sent by %s; nothing was sent\n", len(due), cli.When(by))
				return nil
			}
			res, err := admin.SendDue(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				err = cli.PrintJSON(a.stdout, web.NewPassJSON(res))
			} else {
				_, err = fmt.Fprintln(a.stdout, res.String())
			}
			if err != nil {
				return err
			}
			switch {
			case len(res.Errors) > 0:
				return fmt.Errorf("the pass met errors: %s", res.Errors[0])
			case res.Unreachable():
				return errors.New("the mail server could not be reached: every send failed and will be retried")
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be sent, send nothing")
	cmd.Flags().StringVar(&at, "at", "", "with --dry-run: list what is due by this time (TIME: RFC 3339, \"2026-04-01 09:30\" (UTC), 2026-04-01, now, +30d, +36h, -24h)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
