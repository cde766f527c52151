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

func newStatsCmd(a *app) *cobra.Command {
	var asJSON bool
	var since string
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Page views of the web app's public pages, per day and path",
		Long: "Page views of the web app's public pages, per UTC day and path, from the first-party counter\n" +
			"(no cookie, nothing about the visitor; docs/api.md \"Page views\"). Through the running server's\n" +
			"admin socket when one answers, else from the store.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			from, err := statsSince(since, time.Now())
			if err != nil {
				return err
			}
			client, s, done, err := a.operatorView(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			var stats core.PageViewStats = client
			if client == nil {
				stats = s.PageViews
			}
			counts, err := stats.PageViews(cmd.Context(), from)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, each(counts, web.NewPageViewJSON))
			}
			return a.printStats(counts, from)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&since, "since", "7d", "first day shown: a number of days back (7d: today and the 6 days before) or a TIME (RFC 3339, \"2026-04-01 09:30\" (UTC), 2026-04-01, -36h)")
	return cmd
}

// statsSince reads --since: Nd (today and the N-1 days before, N at least
// 1), or a day or time ParseSince reads.
func statsSince(s string, now time.Time) (time.Time, error) {
	if n, ok := strings.CutSuffix(strings.TrimSpace(s), "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 1 || days > 36600 {
			return time.Time{}, usagef("--since %q: a number of days must be between 1 and 36600, e.g. 7d", s)
		}
		return now.UTC().AddDate(0, 0, 1-days), nil
	}
	t, err := cli.ParseSince(s, now)
	if err != nil {
		return time.Time{}, usageError{fmt.Errorf("--since: %w", err)}
	}
	return t, nil
}

// printStats prints a table of day, path and views (by day, then path)
// and the total.
func (a *app) printStats(counts []core.PageViewCount, from time.Time) error {
	rows := make([][]string, len(counts))
	var total int64
	for i, c := range counts {
		rows[i] = []string{c.Day, c.Path, strconv.FormatInt(c.Views, 10)}
		total += c.Views
	}
	if err := cli.PrintTable(a.stdout, []string{"DAY", "PATH", "VIEWS"}, rows); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%d views since %s (UTC)\n", total, core.PageViewDay(from))
	return nil
}
