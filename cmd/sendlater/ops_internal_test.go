package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/mailer"
	"github.com/sendlater/sendlater/metrics"
	"github.com/sendlater/sendlater/store/bolt"
	"github.com/sendlater/sendlater/store/postgres"
)

// opsDir holds the dashboard and the alert rules shipped to operators.
var opsDir = filepath.Join("..", "..", "docs", "ops")

// families are the names of every family serve may expose: the metrics'
// own, the queue's, both stores' and the SMTP pool's, the runtime's.
func families() []string {
	m := metrics.New("p")
	m.Queue(noQueue{}, core.SystemClock{})
	m.Gauges(storeGauges((*bolt.DB)(nil))...)
	m.Gauges(storeGauges((*postgres.DB)(nil))...)
	m.Gauges(mailerGauges((*mailer.SMTP)(nil))...)
	return m.Families()
}

type noQueue struct{}

func (noQueue) DueQueue(context.Context, time.Time) (int, time.Time, error) {
	return 0, time.Time{}, nil
}

// metricName finds the metric names of an expression: the words of ours
// and of the Go and process collectors (labels, functions and words in
// quotes are not names).
var metricName = regexp.MustCompile(`\b((?:sendlater|go|process)_[a-zA-Z0-9_]+)\b`)

// exists tells whether name is a family, or a histogram's series of one.
func exists(fams []string, name string) bool {
	for _, suffix := range []string{"", "_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && slices.Contains(fams, base) {
			return true
		}
	}
	return false
}

// TestDashboardNamesExistingMetrics: every expression of every panel of
// docs/ops/dashboard.json, and of every rule of docs/ops/alerts.yml,
// names metrics that exist, and every panel names one of ours.
func TestDashboardNamesExistingMetrics(t *testing.T) {
	fams := families()
	raw, err := os.ReadFile(filepath.Join(opsDir, "dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	if len(d.Panels) < 10 {
		t.Fatalf("dashboard.json has %d panels", len(d.Panels))
	}
	for _, p := range d.Panels {
		ours := false
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no expression", p.Title)
		}
		for _, target := range p.Targets {
			for _, name := range metricName.FindAllString(target.Expr, -1) {
				ours = ours || strings.HasPrefix(name, "sendlater_")
				if !exists(fams, name) {
					t.Errorf("panel %q names %s, which no process exposes", p.Title, name)
				}
			}
		}
		if !ours && !strings.Contains(p.Title, "up") && !strings.HasPrefix(p.Title, "Go") && !strings.HasPrefix(p.Title, "Process") {
			t.Errorf("panel %q names no metric of ours", p.Title)
		}
	}
	rules, err := os.ReadFile(filepath.Join(opsDir, "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range metricName.FindAllString(string(rules), -1) {
		if !exists(fams, name) {
			t.Errorf("alerts.yml names %s, which no process exposes", name)
		}
	}
}

// TestAlertRules runs promtool on docs/ops: the rules check, and their
// unit tests fire each alert from synthetic series.
func TestAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian's prometheus package; scripts/ensure-tools.sh installs it)")
	}
	for _, args := range [][]string{{"check", "rules", "alerts.yml"}, {"test", "rules", "alerts_test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = opsDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
