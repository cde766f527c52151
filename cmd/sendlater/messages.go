package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

func newMessagesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "messages", Short: "List, show and steer messages"}
	cmd.AddCommand(newMessagesListCmd(a), newMessagesShowCmd(a),
		newMessagesRescheduleCmd(a), newMessagesDeliverNowCmd(a),
		newMessagesSetActiveCmd(a, false), newMessagesSetActiveCmd(a, true),
		newMessagesPostponeCmd(a), newMessagesDeleteCmd(a),
		newMessagesAttachCmd(a), newMessagesDetachCmd(a), newMessagesFilesCmd(a))
	return cmd
}

// messageJSON is a message as --json prints it: the admin socket's form
// (web.MessageJSON), the body only with --reveal. The postpone code is
// never in it.
func messageJSON(m *core.Message, reveal bool) *web.MessageJSON {
	j := web.NewAdminMessageJSON(m)
	if !reveal {
		j.Message = ""
	}
	return j
}

func newMessagesListCmd(a *app) *cobra.Command {
	var asJSON, reveal bool
	var user, status, dueBefore string
	var limit, offset int
	cmd := &cobra.Command{
		Use:   "list [--user EMAIL] [--status S] [--due-before TIME]",
		Short: "List messages, newest first",
		Args:  cobra.NoArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminMessages) error {
			f, err := messageFilter(status, dueBefore)
			if err != nil {
				return err
			}
			f.Offset, f.Limit = offset, limit
			ms, total, err := admin.ListMessages(cmd.Context(), user, f)
			if err != nil {
				return err
			}
			if asJSON && reveal {
				// The bodies, each recorded in the audit log as read.
				if ms, err = admin.RevealMessages(cmd.Context(), each(ms, func(m *core.Message) string { return m.ID })); err != nil {
					return err
				}
			}
			if asJSON {
				out := make([]*web.MessageJSON, len(ms))
				for i, m := range ms {
					out[i] = messageJSON(m, reveal)
				}
				return cli.PrintJSON(a.stdout, out)
			}
			rows := make([][]string, len(ms))
			for i, m := range ms {
				rows[i] = []string{m.ID, m.Owner, cli.Clip(m.Title, 30), m.Recipient, string(m.Interval),
					cli.When(m.SendDate), string(m.DisplayStatus()), cli.When(m.CreatedAt)}
			}
			if err := cli.PrintTable(a.stdout, []string{"ID", "OWNER", "TITLE", "RECIPIENT", "INTERVAL", "SEND DATE", "STATUS", "CREATED"}, rows); err != nil {
				return err
			}
			a.sayf("%d of %d messages", len(ms), total)
			return nil
		}),
	}
	cmd.Flags().StringVar(&user, "user", "", "only this user's messages (id or email)")
	cmd.Flags().StringVar(&status, "status", "", "only messages in this status: scheduled, reminded, sending, delivered, failed or paused")
	cmd.Flags().StringVar(&dueBefore, "due-before", "", "only messages whose delivery date is before this time (TIME: RFC 3339, \"2026-04-01 09:30\" (UTC), 2026-04-01, now, +30d, +36h, -24h)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&reveal, "reveal", false, "include message bodies in --json")
	cmd.Flags().IntVar(&limit, "limit", 0, "list at most this many (0: all)")
	cmd.Flags().IntVar(&offset, "offset", 0, "skip this many")
	return cmd
}

func newMessagesShowCmd(a *app) *cobra.Command {
	var asJSON, reveal bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one message (the body only with --reveal)",
		Args:  useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminMessages) error {
			m, err := admin.FindMessage(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if reveal {
				// The body, recorded in the audit log as read.
				revealed, err := admin.RevealMessages(cmd.Context(), []string{m.ID})
				if err != nil {
					return err
				}
				m = revealed[0]
			}
			// What follows the message: its webhook call or its author's
			// failure notice, while it waits or once it failed for good.
			follow, err := admin.MessageOutbox(cmd.Context(), m.ID)
			if err != nil && core.ErrorCode(err) != core.ENotFound {
				return err
			}
			events, err := admin.MessageEvents(cmd.Context(), m.ID)
			if err != nil {
				return err
			}
			if asJSON {
				j := messageJSON(m, reveal)
				j.Events = web.EventsJSON(events)
				if follow != nil {
					o := web.NewOutboxItemJSON(follow)
					j.Outbox = &o
				}
				return cli.PrintJSON(a.stdout, j)
			}
			body := "(hidden: add --reveal to print it)"
			switch {
			case m.IsSealed():
				body = "sealed (only the author's passphrase opens it; Sendlater cannot)"
			case reveal:
				body = "\n" + m.Body
			}
			fields := [][2]string{
				{"ID", m.ID}, {"Owner", m.Owner}, {"Title", m.Title},
			}
			fields = append(fields, recipientFields(m)...)
			fields = append(fields, [][2]string{
				{"Interval", string(m.Interval)}, {"Send date", cli.When(m.SendDate)}, {"Active", strconv.FormatBool(m.IsActive)},
				{"Status", string(m.DisplayStatus())}, {"Attempts", strconv.Itoa(m.Attempts)}, {"Last error", cli.OrDash(m.LastError)},
				{"Reminder sent", cli.When(m.ReminderSentAt)}, {"Delivered", cli.When(m.DeliveredAt)},
				{"Created", cli.When(m.CreatedAt)},
			}...)
			if follow != nil {
				fields = append(fields, [2]string{outboxLabel(follow), outboxState(follow)})
			}
			if err := cli.PrintFields(a.stdout, append(fields, [2]string{"Message", body})); err != nil {
				return err
			}
			return printTimeline(a.stdout, events)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&reveal, "reveal", false, "print the message body")
	return cmd
}

// printTimeline prints a message's events, oldest first, one a line.
func printTimeline(w io.Writer, events []*core.MessageEvent) error {
	if _, err := fmt.Fprintln(w, "\nTimeline:"); err != nil {
		return err
	}
	for _, e := range events {
		line := "  " + cli.When(e.At) + "  " + string(e.Kind)
		if e.Recipient != "" {
			line += " " + e.Recipient
		}
		if e.Actor != "" {
			line += " by " + e.Actor
		}
		if e.Detail != "" {
			line += ": " + e.Detail
		}
		if !e.NextAttemptAt.IsZero() {
			line += ", next attempt " + cli.When(e.NextAttemptAt)
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// recipientFields are a message's recipients, each with how their email
// went: one "Recipient" line, or "Recipient 1" to "Recipient n".
func recipientFields(m *core.Message) [][2]string {
	rs := m.RecipientList()
	out := make([][2]string, len(rs))
	for i, r := range rs {
		label := "Recipient"
		if len(rs) > 1 {
			label = fmt.Sprintf("Recipient %d", i+1)
		}
		state := string(r.Status)
		switch {
		case r.Status == core.RecipientSent:
			state += " " + cli.When(r.SentAt)
		case r.LastError != "" && !r.NextAttemptAt.IsZero():
			state += fmt.Sprintf(", next attempt %s (%s)", cli.When(r.NextAttemptAt), r.LastError)
		case r.LastError != "":
			state += ": " + r.LastError
		}
		out[i] = [2]string{label, r.Name + " <" + r.Address + ">, " + state}
	}
	return out
}

// messageFilter is what messages list --status and --due-before keep; nil
// keeps all.
func messageFilter(status, dueBefore string) (core.MessageFilter, error) {
	f := core.MessageFilter{Status: core.MessageStatus(status)}
	if status != "" && !core.ValidStatus(f.Status) {
		return f, usagef("--status must be scheduled, reminded, sending, delivered, failed or paused")
	}
	if dueBefore != "" {
		var err error
		if f.DueBefore, err = cli.ParseWhen(dueBefore, time.Now()); err != nil {
			return f, usageError{err}
		}
	}
	return f, nil
}

// outboxLabel names what follows a message.
func outboxLabel(it *core.OutboxItem) string {
	switch it.Kind {
	case core.OutboxFailureNotice:
		return "Author's notice"
	case core.OutboxReminderCopy:
		return "Reminder copy"
	}
	return "Webhook call"
}

// outboxState is how it went: failed for good (nobody was told), or
// waiting for its next attempt.
func outboxState(it *core.OutboxItem) string {
	if !it.FailedAt.IsZero() {
		return "FAILED for good " + cli.When(it.FailedAt) + ": " + it.LastError
	}
	s := "waiting, next attempt " + cli.When(it.NextAttemptAt)
	if it.LastError != "" {
		s += fmt.Sprintf(" (%d failed: %s)", it.Attempts, it.LastError)
	}
	return s
}
