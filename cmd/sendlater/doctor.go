package main

import (
	"context"
	"fmt"
	"net/mail"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/dnscheck"
	"github.com/sendlater/sendlater/internal/doctor"
)

// doctorSections are the sections `sendlater doctor` runs, by name; each
// is also `sendlater doctor NAME`.
var doctorSections = []struct {
	name, short string
	run         func(a *app, ctx context.Context) (doctor.Section, error)
}{
	{"mail", "Check the sending domain's SPF, DKIM and DMARC records and the SMTP server", (*app).doctorMail},
}

func newDoctorCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that the installation's parts work, and say what to fix",
		Long: "Runs every section (today: mail) and prints each check with ✓ or ✗ and, under a ✗, what to fix.\n" +
			"The exit status is 1 when a check failed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var sections []doctor.Section
			for _, d := range doctorSections {
				s, err := d.run(a, cmd.Context())
				if err != nil {
					return err
				}
				sections = append(sections, s)
			}
			return a.doctorReport(sections...)
		},
	}
	for _, d := range doctorSections {
		cmd.AddCommand(&cobra.Command{
			Use:   d.name,
			Short: d.short,
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				s, err := d.run(a, cmd.Context())
				if err != nil {
					return err
				}
				return a.doctorReport(s)
			},
		})
	}
	return cmd
}

// doctorReport prints the sections; an error (exit status 1) when a check
// failed.
func (a *app) doctorReport(sections ...doctor.Section) error {
	if n := doctor.Write(a.stdout, sections...); n > 0 {
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
	s := a.cfg.Mail.SMTP
	return doctor.CheckMail(ctx, doctor.Mail{
		From: from.Address, DKIM: dkim, Resolver: res,
		SMTP: doctor.SMTP{Host: s.Host, Port: s.Port, TLS: s.TLS, Username: s.Username, Password: s.Password, Timeout: s.Timeout},
	}), nil
}
