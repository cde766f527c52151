package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/textlog"
	"github.com/sendlater/sendlater/metrics"
	"github.com/sendlater/sendlater/tracing"
)

// app is what every subcommand shares: the flags, the config and the logger.
type app struct {
	v          *viper.Viper
	configFile string
	verbose    bool
	// noScheduler is serve --no-scheduler.
	noScheduler bool
	// command is the subcommand's path without "sendlater ", e.g. "send-due".
	command string
	// actor is the audit log's who for a command that opened the store
	// itself (through the admin socket the server reads it from the peer).
	actor string
	cfg   *Config
	log   *slog.Logger
	// metrics are serve's Prometheus families (metrics.addr); nil: off.
	metrics *metrics.Metrics
	// doctorLoad is the configuration as `sendlater doctor` read it.
	doctorLoad doctorLoad
	// tracer is serve's OpenTelemetry tracer (tracing.otlp_endpoint); nil:
	// off.
	tracer *tracing.Tracer
	stdout io.Writer
	stderr io.Writer
}

func newRootCmd() *cobra.Command {
	a := &app{v: newViper(), stdout: os.Stdout, stderr: os.Stderr}
	root := &cobra.Command{
		Use:           "sendlater",
		Short:         "Send important messages when the time is right.",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			a.command = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
			return a.load()
		},
	}
	root.PersistentFlags().StringVar(&a.configFile, "config", "", "config file (default ./config.yaml when present)")
	root.PersistentFlags().String("data-dir", "", "data directory (config data_dir, default ./data)")
	root.PersistentFlags().BoolVarP(&a.verbose, "verbose", "v", false, "say more about what the command does")
	a.v.BindPFlag("data_dir", root.PersistentFlags().Lookup("data-dir"))

	root.AddCommand(
		newVersionCmd(a),
		newConfigCmd(a),
		newServeCmd(a),
		newUsersCmd(a),
		newMessagesCmd(a),
		newSendDueCmd(a),
		newBackupCmd(a),
		newStatusCmd(a),
		newMigrateCmd(a),
		newStoreCmd(a),
		newTUICmd(a),
		newLoginCmd(a), newLogoutCmd(a), newWhoamiCmd(a),
		newStatsCmd(a),
		newContactsCmd(a),
		newSuppressionsCmd(a),
		newAttachmentsCmd(a),
		newAuditCmd(a),
		newDocsCmd(a),
		newDKIMCmd(a),
		newDoctorCmd(a),
	)
	return root
}

// load reads and validates the config and sets up logging.
func (a *app) load() error {
	cfg, err := loadConfig(a.v, a.configFile)
	if err != nil {
		return err
	}
	a.cfg = cfg
	core.AllowLocalAddresses(cfg.Mail.AllowLocalRecipients)
	a.logTo(a.stderr, func(h slog.Handler) slog.Handler { return h })
	return nil
}

// logTo sets up the log (a.log and slog's default) to write to w in the
// configured level and format, through wrap.
func (a *app) logTo(w io.Writer, wrap func(slog.Handler) slog.Handler) {
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[a.cfg.Log.Level]
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	if a.cfg.Log.Format == "json" {
		h = slog.NewJSONHandler(w, opts)
	} else {
		h = textlog.New(w, level) // slog's text format, faster (internal/textlog)
	}
	// No email address reaches the log (docs/security.md).
	a.log = slog.New(core.NewMaskingHandler(wrap(h)))
	slog.SetDefault(a.log)
}

// sayf prints to stderr when --verbose is given.
func (a *app) sayf(format string, args ...any) {
	if a.verbose {
		fmt.Fprintf(a.stderr, format+"\n", args...)
	}
}
