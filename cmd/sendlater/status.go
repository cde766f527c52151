package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

func newStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the delivery's health: each process's last pass (the cluster's on a shared store)",
		Long: "Shows whether delivery passes keep finishing, and each process's last pass. With store.driver\n" +
			"postgres every replica and send-due run records its passes in the database, so this is the\n" +
			"cluster's; with bbolt it is the running server's (through its admin socket). Exits non-zero\n" +
			"while the delivery is stalled: schedulers run but no pass finished for " + core.StalledAfter.String() + ".",
		Args: cobra.NoArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminDelivery) error {
			h, err := admin.DeliveryHealth(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				err = cli.PrintJSON(a.stdout, web.NewDeliveryHealthJSON(h))
			} else {
				err = a.printHealth(h)
			}
			if err != nil {
				return err
			}
			if h.State == core.HealthStalled {
				return fmt.Errorf("the delivery is stalled: no pass finished for %s", core.StalledAfter)
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) printHealth(h core.DeliveryHealth) error {
	now := time.Now()
	ago := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return cli.When(t) + " (" + now.Sub(t).Round(time.Second).String() + " ago)"
	}
	state := map[string]string{
		core.HealthOK:      "ok",
		core.HealthStalled: "STALLED: no pass finished for " + core.StalledAfter.String(),
		core.HealthOff:     "off: no process runs a scheduler (cron runs send-due, or no server runs)",
	}[h.State]
	fmt.Fprintf(a.stdout, "delivery:  %s\nlast pass: %s\n\n", state, ago(h.LastPass))
	rows := make([][]string, len(h.Processes))
	for i, p := range h.Processes {
		last := p.LastPass.String()
		if p.LastPass.Error != "" {
			last = "stopped: " + p.LastPass.Error
		}
		sched := "no"
		if p.Scheduler {
			sched = "yes"
		}
		rows[i] = []string{p.Process, sched, cli.When(p.StartedAt), ago(p.SeenAt), last}
	}
	return cli.PrintTable(a.stdout, []string{"PROCESS", "SCHEDULER", "STARTED", "LAST SEEN", "LAST PASS"}, rows)
}
