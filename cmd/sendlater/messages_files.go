package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

// withAuthorFiles makes a command's RunE from fn, which gets the files of
// the message args[0] as its author's (an operator acting for them: each
// attach, detach and download is in the audit log): through the server's
// admin socket when one answers, else over the store opened directly.
func withAuthorFiles(a *app, fn func(cmd *cobra.Command, args []string, files web.AuthorFiles, m *core.Message) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		c, s, done, err := a.operatorView(ctx)
		if err != nil {
			return err
		}
		defer done()
		if c != nil {
			m, err := c.FindMessage(ctx, args[0])
			if err != nil {
				return err
			}
			return fn(cmd, args, c.As(m.Owner), m)
		}
		m, err := s.Admin.FindMessage(ctx, args[0])
		if err != nil {
			return err
		}
		if s.Attachments == nil {
			return core.Errorf(core.EUnavailable, "This installation keeps no files: set attachments.storage (docs/attachments.md).")
		}
		cmd.SetContext(core.WithIdentity(ctx, &core.Identity{UserID: m.Owner, Operator: a.actor}))
		return fn(cmd, args, web.LocalFiles{Files: s.Operator.AuthorFiles()}, m)
	}
}

func newMessagesAttachCmd(a *app) *cobra.Command {
	var name string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "attach ID PATH",
		Short: "Attach a file to a message, as its author (audited)",
		Long: "Uploads the file at PATH to the message ID as its author would, in parts (docs/api.md, \"Files\"),\n" +
			"within the author's plan's limits. The audit log records it.",
		Args: cobra.ExactArgs(2),
		RunE: withAuthorFiles(a, func(cmd *cobra.Command, args []string, files web.AuthorFiles, m *core.Message) error {
			if m.IsSealed() {
				// Its files are sealed with its passphrase on the author's
				// device; the operator has neither (nor the envelope to
				// check one against).
				return core.Errorf(core.EValidation, "The message %s is sealed: its files must be sealed with its passphrase by the author's app. "+
					"Attach them in the web app's message dialog or the TUI's files page (f), which seal them first (docs/sealed.md).", m.ID)
			}
			f, err := os.Open(args[1])
			if err != nil {
				return usagef("%v", err)
			}
			defer f.Close()
			info, err := f.Stat()
			if err != nil || !info.Mode().IsRegular() {
				return usagef("%s is not a file", args[1])
			}
			if name == "" {
				name = filepath.Base(args[1])
			}
			got, err := web.UploadFile(cmd.Context(), files, m.ID, name, f, info.Size())
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, got)
			}
			mark := ""
			if got.Executable {
				mark = ", marked executable"
			}
			fmt.Fprintf(a.stdout, "%s (%s, %s%s) is attached to %s as %s.\n", got.Name, core.FormatBytes(got.Size), got.Type, mark, m.ID, got.ID)
			return nil
		}),
	}
	cmd.Flags().StringVar(&name, "name", "", "the file's name (default: the path's last element)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newMessagesFilesCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "files ID",
		Short: "List a message's files",
		Args:  cobra.ExactArgs(1),
		RunE: withAuthorFiles(a, func(cmd *cobra.Command, args []string, files web.AuthorFiles, m *core.Message) error {
			l, err := files.ListFiles(cmd.Context(), m.ID)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, l)
			}
			rows := make([][]string, len(l))
			for i, f := range l {
				typ := f.Type
				if f.Executable {
					typ += " (executable)"
				}
				rows[i] = []string{f.ID, cli.Clip(f.Name, 40), typ, core.FormatBytes(f.Size), f.State}
			}
			return cli.PrintTable(a.stdout, []string{"FILE", "NAME", "TYPE", "SIZE", "STATE"}, rows)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newMessagesDetachCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "detach ID FILE",
		Short: "Delete a file of a message and its bytes, as its author (audited)",
		Args:  cobra.ExactArgs(2),
		RunE: withAuthorFiles(a, func(cmd *cobra.Command, args []string, files web.AuthorFiles, m *core.Message) error {
			if err := files.DeleteFile(cmd.Context(), m.ID, args[1]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "The file %s of %s is deleted.\n", args[1], m.ID)
			return nil
		}),
	}
}
