package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Set by the linker: -X main.version=... -X main.commit=... -X main.date=...
var (
	version = ""
	commit  = ""
	date    = ""
)

// buildVersion returns the version, commit and build date, from the linker
// flags or else from the build information Go records.
func buildVersion() (v, c, d string) {
	v, c, d = version, commit, date
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.time" && d == "":
				d = s.Value
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if c == "" {
		c = "unknown"
	}
	if d == "" {
		d = "unknown"
	}
	return v, c, d
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  cobra.NoArgs,
		// The version needs no config.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		Run: func(cmd *cobra.Command, args []string) {
			v, c, d := buildVersion()
			fmt.Fprintf(a.stdout, "sendlater %s\ncommit %s\nbuilt %s\n", v, c, d)
		},
	}
}

func newConfigCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration, secrets masked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, kv := range a.cfg.masked() {
				fmt.Fprintf(a.stdout, "%s = %s\n", kv[0], kv[1])
			}
			if a.cfg.baseURLDerived {
				// On stderr: the lines above stay key = value for scripts.
				note := ""
				if strings.HasSuffix(a.cfg.Addr, ":0") {
					note = " (serve puts in the port it gets)"
				}
				fmt.Fprintf(a.stderr, "base_url is not set: %s is derived from addr %s%s\n", a.cfg.BaseURL, a.cfg.Addr, note)
			}
			return nil
		},
	}
}
