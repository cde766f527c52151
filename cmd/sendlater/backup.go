package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/core"
)

func newBackupCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the store to FILE, also while the server runs",
		Long: "Write a consistent copy of the store to FILE. While `sendlater serve` runs the copy\n" +
			"is taken through its admin socket without stopping it. To restore, stop the server and\n" +
			"replace <data_dir>/sendlater.db with the copy (keep the same encryption key).",
		Args: useArgs,
		RunE: withAdmin(a, func(cmd *cobra.Command, args []string, admin core.AdminDelivery) error {
			dst := args[0]
			// Write beside the target and rename, so FILE is never a partial copy.
			f, err := os.CreateTemp(filepath.Dir(dst), ".sendlater-backup-*")
			if err != nil {
				// The temporary file's name means nothing to the reader:
				// say which directory could not take the copy, and why.
				return fmt.Errorf("cannot write %s: the directory %s %s", dst, filepath.Dir(dst), fsReason(err))
			}
			defer os.Remove(f.Name())
			n, err := admin.Backup(cmd.Context(), f)
			if err == nil {
				err = f.Sync()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("backup failed, %s not written: %w", dst, err)
			}
			if err := os.Chmod(f.Name(), 0o600); err != nil {
				return err
			}
			if err := os.Rename(f.Name(), dst); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "wrote %s (%d bytes)\n", dst, n)
			return nil
		}),
	}
}
