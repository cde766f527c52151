package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
)

// Exit statuses (docs/cli.md "Errors and exit status"): 0 done, 1 the command failed,
// 2 the command line was wrong (unknown command or flag, wrong arguments, a
// value the command refuses).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef is a usageError with a formatted message.
func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// execute runs root with args, prints a failure on stderr (with its code)
// and returns the exit status.
func execute(root *cobra.Command, args []string, stderr io.Writer) int {
	// The completion and help commands are added here rather than by
	// Execute, so that markUsage covers them too.
	root.InitDefaultCompletionCmd(args...)
	root.InitDefaultHelpCmd()
	markUsage(root)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "Error:", errorText(err))
	if isUsage(err) {
		fmt.Fprintln(stderr, "Run 'sendlater help' or add --help to a command for its usage.")
		return exitUsage
	}
	return exitFailure
}

// markUsage makes every argument check and flag error of the tree a
// usageError.
func markUsage(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	if cmd.HasSubCommands() && !cmd.Runnable() {
		// A group (users, messages, ...): an unknown subcommand is a
		// mistake, not a reason to print the help and succeed.
		cmd.Args = cobra.ArbitraryArgs
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for %q", args[0], c.CommandPath())
			}
			return c.Help()
		}
	}
	for _, c := range cmd.Commands() {
		markUsage(c)
	}
}

// isUsage tells a wrong command line: a usageError, cobra's unknown
// command, or an argument the application refuses field by field
// (request/validation). A bad configuration is a failure (1), not usage.
func isUsage(err error) bool {
	var u usageError
	// cobra checks required flags itself and returns its own error, not
	// through the flag error function: `login` without --server.
	if errors.As(err, &u) || strings.HasPrefix(err.Error(), "unknown command") ||
		strings.HasPrefix(err.Error(), "required flag(s)") {
		return true
	}
	return core.ErrorCode(err) == core.EValidation
}

// errorText is what a user reads of an error: an application error's
// message, its fields and its code; any other error as it is.
func errorText(err error) string {
	var e *core.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	msg := e.Message
	if e.Code == core.EValidation && len(e.Fields) > 0 {
		// core's message speaks to a form ("Please check the highlighted
		// fields."); a terminal highlights nothing, the lines below name
		// each field and its rule.
		msg = "invalid input"
	}
	s := msg + " (" + e.Code + ")"
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s += fmt.Sprintf("\n  %s: %s", k, e.Fields[k])
	}
	return s
}

// useArgs checks a command's arguments against the words of its Use line
// ("show ID", "set-plan ID|EMAIL starter|pro|business", "sync-billing
// [ID|EMAIL]"), so that a missing or extra argument is named with the usage:
// "missing ID: sendlater messages show ID" rather than cobra's "accepts 1
// arg(s), received 0".
func useArgs(c *cobra.Command, args []string) error {
	var required, optional []string
	flagValue := false
	for _, w := range strings.Fields(c.Use)[1:] {
		wasFlag := flagValue
		flagValue = strings.HasPrefix(w, "-")
		switch {
		case flagValue, wasFlag: // a flag, or its value ("--at TIME")
		case strings.HasPrefix(w, "["):
			if !strings.HasPrefix(w, "[-") {
				optional = append(optional, strings.Trim(w, "[]"))
			}
		case strings.HasSuffix(w, "]"): // the value of an optional flag: "[--since TIME]"
		default:
			if strings.ToUpper(w[:1]) == w[:1] || strings.Contains(w, "|") {
				required = append(required, w)
			}
		}
	}
	usage := c.CommandPath()
	if rest, ok := strings.CutPrefix(c.Use, c.Name()); ok {
		usage += rest
	}
	if len(args) < len(required) {
		return usagef("missing %s: %s", strings.Join(required[len(args):], " and "), usage)
	}
	if len(args) > len(required)+len(optional) {
		return usagef("unexpected argument %q: %s", args[len(required)+len(optional)], usage)
	}
	return nil
}
