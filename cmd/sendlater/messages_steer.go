package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
)

// The operator's delivery controls on one message.

func newMessagesRescheduleCmd(a *app) *cobra.Command {
	var at string
	cmd := &cobra.Command{
		Use:   "reschedule ID --at TIME",
		Short: "Move a message's delivery date (reminders start over; a failed message is retried)",
		Args:  useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminMessages) error {
			if at == "" {
				return usagef("--at is required, e.g. --at 2026-04-01T09:30:00Z or --at +48h")
			}
			t, err := cli.ParseWhen(at, time.Now())
			if err != nil {
				return usageError{err}
			}
			m, err := admin.RescheduleMessage(cmd.Context(), args[0], t)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s will be delivered at %s (%s)\n", m.ID, cli.When(m.SendDate), m.DisplayStatus())
			return nil
		}),
	}
	cmd.Flags().StringVar(&at, "at", "", "the new delivery time (TIME: RFC 3339, \"2026-04-01 09:30\" (UTC), 2026-04-01, now, +30d, +36h, -24h)")
	return cmd
}

func newMessagesDeliverNowCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "deliver-now ID",
		Short: "Make a message due now and run a delivery pass",
		Args:  useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminDelivery) error {
			m, res, err := admin.DeliverNow(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s is %s (pass: %s)\n", m.ID, m.DisplayStatus(), res)
			if m.Status != core.StatusDelivered {
				if m.LastError != "" {
					return fmt.Errorf("not delivered: %s", m.LastError)
				}
				return fmt.Errorf("not delivered yet")
			}
			return nil
		}),
	}
}

func newMessagesSetActiveCmd(a *app, active bool) *cobra.Command {
	use, short := "pause ID", "Pause a message: it is not delivered until resumed"
	if active {
		use, short = "resume ID", "Resume a paused message"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminMessages) error {
			m, err := admin.SetMessageActive(cmd.Context(), args[0], active)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s is %s, delivery date %s\n", m.ID, m.DisplayStatus(), cli.When(m.SendDate))
			return nil
		}),
	}
}

func newMessagesPostponeCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "postpone ID",
		Short: "Postpone a message by its interval from today, as its author's Postpone does",
		Args:  useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminMessages) error {
			before, err := admin.FindMessage(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			m, err := admin.PostponeMessage(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			// The date stays when now plus the interval falls on the day it
			// already has (core's one rule): say so, not that it moved.
			if m.SendDate.Equal(before.SendDate) {
				fmt.Fprintf(a.stdout, "%s: %s (%s)\n", m.ID, core.PostponeNoEffect(cli.When(m.SendDate)), m.DisplayStatus())
				return nil
			}
			fmt.Fprintf(a.stdout, "%s: %s (%s)\n", m.ID, core.PostponedTo(cli.When(m.SendDate)), m.DisplayStatus())
			return nil
		}),
	}
}

func newMessagesDeleteCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a message that is not being sent",
		Args:  useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminMessages) error {
			if err := admin.DeleteMessage(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s is deleted.\n", args[0])
			return nil
		}),
	}
}
