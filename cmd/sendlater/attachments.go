package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/cli"
	"github.com/sendlater/sendlater/web"
)

// newAttachmentsCmd is `sendlater attachments`: the care of the files'
// storage (docs/attachments.md).
func newAttachmentsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "attachments", Short: "The storage of messages' files"}
	cmd.AddCommand(newAttachmentsGCCmd(a))
	return cmd
}

func newAttachmentsGCCmd(a *app) *cobra.Command {
	var asJSON, force bool
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove files' bytes that no file needs: a crash's orphans and stale uploads (audited)",
		Long: "Removes the uploads left incomplete longer than attachments.stale_uploads, then every stored part\n" +
			"that no file lists (left by a crash between a deletion's record and its bytes, or by a failed\n" +
			"part), keeping the parts of every live file and of uploads under way. Through the running\n" +
			"server's admin socket when one answers, else over the store opened directly. A store that lists no\n" +
			"file while the storage holds parts removes nothing (they may be another store's: store copy does not\n" +
			"carry files yet) unless --force.",
		Args: cobra.NoArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminFiles) error {
			rep, err := admin.CollectFiles(cmd.Context(), force)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.PrintJSON(a.stdout, web.GCReportJSON(rep))
			}
			_, err = fmt.Fprintln(a.stdout, rep.String())
			return err
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&force, "force", false, "remove orphans even when the store lists no file at all")
	return cmd
}
