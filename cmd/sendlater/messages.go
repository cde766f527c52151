package main

import (
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
)

func newMessagesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "messages", Short: "List, show and steer messages"}
	cmd.AddCommand(newMessagesListCmd(a), newMessagesShowCmd(a),
		newMessagesRescheduleCmd(a), newMessagesDeliverNowCmd(a),
		newMessagesSetActiveCmd(a, false), newMessagesSetActiveCmd(a, true))
	return cmd
}

// messageView is a message as the CLI prints it in --json. The body is only
// there with --reveal; the postpone code never is.
type messageView struct {
	ID             string `json:"id"`
	Owner          string `json:"owner"`
	Title          string `json:"title"`
	Name           string `json:"name"`
	Recipient      string `json:"recipient"`
	Message        string `json:"message,omitempty"`
	Interval       string `json:"interval"`
	SendDate       string `json:"sendDate"`
	IsActive       bool   `json:"isActive"`
	Status         string `json:"status"`
	Attempts       int    `json:"attempts"`
	LastError      string `json:"lastError,omitempty"`
	ReminderSentAt string `json:"reminderSentAt,omitempty"`
	DeliveredAt    string `json:"deliveredAt,omitempty"`
	CreatedAt      string `json:"createdAt"`
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func newMessageView(m *core.Message, reveal bool) messageView {
	v := messageView{
		ID: m.ID, Owner: m.Owner, Title: m.Title, Name: m.Name, Recipient: m.Recipient,
		Interval: string(m.Interval), SendDate: rfc3339(m.SendDate), IsActive: m.IsActive,
		Status: string(m.DisplayStatus()), Attempts: m.Attempts, LastError: m.LastError,
		ReminderSentAt: rfc3339(m.ReminderSentAt), DeliveredAt: rfc3339(m.DeliveredAt), CreatedAt: rfc3339(m.CreatedAt),
	}
	if reveal {
		v.Message = m.Body
	}
	return v
}

func newMessagesListCmd(a *app) *cobra.Command {
	var asJSON, reveal bool
	var user string
	var limit, offset int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List messages, newest first",
		Args:  cobra.NoArgs,
		RunE: a.withAdmin(func(cmd *cobra.Command, args []string, admin core.Admin) error {
			ms, total, err := admin.ListMessages(cmd.Context(), user, core.MessageFilter{Offset: offset, Limit: limit})
			if err != nil {
				return err
			}
			views := make([]messageView, len(ms))
			for i, m := range ms {
				views[i] = newMessageView(m, reveal)
			}
			if asJSON {
				return printJSON(a.stdout, views)
			}
			rows := make([][]string, len(ms))
			for i, m := range ms {
				rows[i] = []string{m.ID, m.Owner, clip(m.Title, 30), m.Recipient, string(m.Interval),
					when(m.SendDate), string(m.DisplayStatus()), when(m.CreatedAt)}
			}
			if err := printTable(a.stdout, []string{"ID", "OWNER", "TITLE", "RECIPIENT", "INTERVAL", "SEND DATE", "STATUS", "CREATED"}, rows); err != nil {
				return err
			}
			a.sayf("%d of %d messages", len(ms), total)
			return nil
		}),
	}
	cmd.Flags().StringVar(&user, "user", "", "only this user's messages (id or email)")
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
		Args:  cobra.ExactArgs(1),
		RunE: a.withAdmin(func(cmd *cobra.Command, args []string, admin core.Admin) error {
			m, err := admin.FindMessage(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			v := newMessageView(m, reveal)
			if asJSON {
				return printJSON(a.stdout, v)
			}
			body := "(hidden: add --reveal to print it)"
			if reveal {
				body = "\n" + m.Body
			}
			return printFields(a.stdout, [][2]string{
				{"ID", v.ID}, {"Owner", v.Owner}, {"Title", v.Title}, {"Recipient", v.Name + " <" + v.Recipient + ">"},
				{"Interval", v.Interval}, {"Send date", when(m.SendDate)}, {"Active", strconv.FormatBool(v.IsActive)},
				{"Status", v.Status}, {"Attempts", strconv.Itoa(v.Attempts)}, {"Last error", orDash(v.LastError)},
				{"Reminder sent", when(m.ReminderSentAt)}, {"Delivered", when(m.DeliveredAt)},
				{"Created", when(m.CreatedAt)}, {"Message", body},
			})
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&reveal, "reveal", false, "print the message body")
	return cmd
}
