package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/dnscheck"
	"github.com/sendlater/sendlater/internal/doctor"
	"github.com/sendlater/sendlater/internal/textlog"
)

// doctorSection is one section of `sendlater doctor`, also `sendlater
// doctor NAME`. A section that cannot run (a setting it needs cannot be
// read) returns an error, shown as its one failed check.
type doctorSection struct {
	name, short string
	run         func(a *app, ctx context.Context) (doctor.Section, error)
	// alone: only `sendlater doctor NAME` runs it (its checks are part of
	// another section).
	alone bool
}

var doctorSections = []doctorSection{
	{name: "config", short: "Check the configuration: unknown keys, values, secrets, the key file's and data directory's modes", run: (*app).doctorConfig},
	{name: "store", short: "Check the store read-only: it opens, migrations current, consistency (bbolt) or reachability and clock (PostgreSQL)", run: (*app).doctorStore},
	{name: "mail", short: "Check the sending domain's SPF, DKIM and DMARC records and the SMTP server", run: (*app).doctorMail},
	{name: "smtp", short: "Check the SMTP server alone: connect, EHLO, STARTTLS, AUTH", run: (*app).doctorSMTP, alone: true},
	{name: "web", short: "Check that Sendlater answers its health check at base_url", run: (*app).doctorWeb},
	{name: "host", short: "Check the admin socket's mode and the data directory's free disk", run: (*app).doctorHost},
}

// doctorWebTimeout bounds the wait for base_url's health check.
const doctorWebTimeout = 5 * time.Second

func newDoctorCmd(a *app) *cobra.Command {
	var asJSON bool
	var names []string
	for _, d := range doctorSections {
		if !d.alone {
			names = append(names, d.name)
		}
	}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that the installation's parts work, and say what to fix",
		Long: "Runs every section (" + strings.Join(names, ", ") + ") and prints each check with ✓, ✗ or - (not\n" +
			"checked here, with why) and, under a ✗, what to fix. It changes nothing: the store is opened\n" +
			"read-only (or copied through the running server's admin socket), never created or migrated.\n" +
			"The exit status is 1 when a check failed; --json prints one array of {section, check, ok,\n" +
			"skipped, detail, fix} for scripts.",
		Args: cobra.NoArgs,
		// The configuration is checked, not required: a typo is reported
		// with the rest instead of stopping the command.
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			a.command = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
			a.loadForDoctor()
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var sections []doctor.Section
			for _, d := range doctorSections {
				if d.alone {
					continue
				}
				sections = append(sections, a.runDoctorSection(cmd.Context(), d))
				if a.cfg == nil { // the configuration did not load: nothing else can be checked
					break
				}
			}
			return a.doctorReport(asJSON, sections...)
		},
	}
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print one JSON array of the checks")
	for _, d := range doctorSections {
		cmd.AddCommand(&cobra.Command{
			Use:   d.name,
			Short: d.short,
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				s := a.runDoctorSection(cmd.Context(), d)
				if a.cfg == nil && d.name != "config" {
					s = a.runDoctorSection(cmd.Context(), doctorSections[0])
				}
				return a.doctorReport(asJSON, s)
			},
		})
	}
	return cmd
}

// runDoctorSection runs d; an error is its one failed check.
func (a *app) runDoctorSection(ctx context.Context, d doctorSection) doctor.Section {
	if a.cfg == nil && d.name != "config" {
		return doctor.Section{}
	}
	s, err := d.run(a, ctx)
	if err != nil {
		s = doctor.Section{Name: d.name, Title: d.short}
		s.Fail(d.name, err.Error(), "correct the setting it names (`sendlater doctor config` checks them all), then run this again")
	}
	return s
}

// loadForDoctor reads the configuration as load does, keeping what went
// wrong for the config section: unknown keys leave a.cfg set, a config that
// cannot be made leaves it nil.
func (a *app) loadForDoctor() {
	a.doctorLoad.cfg, a.doctorLoad.unknown, a.doctorLoad.err = readConfig(a.v, a.configFile)
	a.cfg = a.doctorLoad.cfg
	if a.cfg == nil {
		a.log = slog.New(textlog.New(a.stderr, slog.LevelInfo))
		return
	}
	a.logTo(a.stderr, func(h slog.Handler) slog.Handler { return h })
}

// doctorLoad is what loadForDoctor found.
type doctorLoad struct {
	cfg     *Config
	unknown []error
	err     error
}

// doctorReport prints the sections (as JSON with asJSON); an error (exit
// status 1) when a check failed.
func (a *app) doctorReport(asJSON bool, sections ...doctor.Section) error {
	var n int
	if asJSON {
		var err error
		if n, err = doctor.WriteJSON(a.stdout, sections...); err != nil {
			return err
		}
	} else {
		n = doctor.Write(a.stdout, sections...)
	}
	if n > 0 {
		what := "problems"
		if n == 1 {
			what = "problem"
		}
		return fmt.Errorf("doctor found %d %s: fix what is marked ✗ as said under it, then run it again", n, what)
	}
	return nil
}

// doctorMail checks mail as the config sets it up: the domain of mail.from,
// mail.dkim.*, mail.smtp.*, asking the resolver of mail.dns_server (the
// system's when it is empty or off).
func (a *app) doctorMail(ctx context.Context) (doctor.Section, error) {
	from, err := mail.ParseAddress(a.cfg.Mail.From)
	if err != nil {
		return doctor.Section{}, fmt.Errorf("config: mail.from: %w", err)
	}
	server := a.cfg.Mail.DNSServer
	if server == dnsOff {
		server = ""
	}
	res, err := dnscheck.NewResolver(server, 0)
	if err != nil {
		return doctor.Section{}, fmt.Errorf("config: mail.dns_server: %w", err)
	}
	dkim, err := a.cfg.dkim()
	if err != nil {
		return doctor.Section{}, err
	}
	return doctor.CheckMail(ctx, doctor.Mail{From: from.Address, DKIM: dkim, Resolver: res, SMTP: a.doctorSMTPConfig()}), nil
}

// doctorSMTP checks the SMTP server of mail.smtp.* alone.
func (a *app) doctorSMTP(ctx context.Context) (doctor.Section, error) {
	return doctor.CheckSMTP(a.doctorSMTPConfig()), nil
}

func (a *app) doctorSMTPConfig() doctor.SMTP {
	s := a.cfg.Mail.SMTP
	return doctor.SMTP{Host: s.Host, Port: s.Port, TLS: s.TLS, Username: s.Username, Password: s.Password, Timeout: min(s.Timeout, 15*time.Second)}
}

// doctorWeb asks base_url's health check.
func (a *app) doctorWeb(ctx context.Context) (doctor.Section, error) {
	client := &http.Client{Timeout: doctorWebTimeout}
	s := doctor.CheckWeb(ctx, client, a.cfg.BaseURL)
	if a.cfg.baseURLDerived {
		s.Title += " (derived from addr: set base_url to the address people open)"
	}
	return s, nil
}

// doctorHost checks the admin socket and the data directory's disk.
func (a *app) doctorHost(ctx context.Context) (doctor.Section, error) {
	s := doctor.Section{Name: "host", Title: "Host: data_dir " + a.cfg.DataDir}
	s.CheckSocket("admin socket", a.cfg.socketPath())
	s.CheckDisk("free disk", a.cfg.DataDir)
	return s, nil
}
