package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/store/transfer"
)

func newStoreCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "store", Short: "Move an installation between store backends"}
	cmd.AddCommand(newStoreCopyCmd(a))
	return cmd
}

func newStoreCopyCmd(a *app) *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "copy --from DRIVER:WHERE --to DRIVER:WHERE",
		Short: "Copy every record of one store into another (bbolt <-> PostgreSQL)",
		Long: "Copies every user, message (with its timeline), session, access token, action code, contact\n" +
			"submission, delivery record (refusals, webhook calls and secrets), linked sign-in account,\n" +
			"applied payment event, audit log entry, page-view counter and attached file (kept inside the\n" +
			"store) from one store into another, e.g.\n\n" +
			"  sendlater store copy --from bolt:data/sendlater.db --to postgres:postgres://sendlater@db/sendlater\n\n" +
			"WHERE is a bbolt file, or a PostgreSQL URL (empty: the PG* environment variables). Message\n" +
			"contents and attached files are copied still encrypted: both stores use the configured\n" +
			"encryption key. Records are upserted and a file the destination holds already is left as it\n" +
			"is, so a copy can be rerun (a rerun changes nothing; a page-view counter is set to the\n" +
			"source's count, not added to); at the end the destination must hold as many records of each\n" +
			"kind as the source. Stop every server first: writes made during the copy are not in it.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			src, err := parseStoreSpec("--from", from)
			if err != nil {
				return err
			}
			dst, err := parseStoreSpec("--to", to)
			if err != nil {
				return err
			}
			key, err := a.encryptionKey(false)
			if err != nil {
				return err
			}
			fromStore, err := src.driver.open(ctx, a, src.where, key, openSource)
			if err != nil {
				return err
			}
			defer fromStore.Close()
			toStore, err := dst.driver.open(ctx, a, dst.where, key, openCreate)
			if err != nil {
				return err
			}
			defer toStore.Close()
			rep, err := transfer.Copy(ctx, fromStore, toStore)
			if err != nil {
				return fmt.Errorf("the copy from %s to %s stopped: %w", src.name, dst.name, err)
			}
			fmt.Fprintf(a.stdout, "copied from %s to %s: %s\n%d records were new or changed in %s; the counts match\n",
				src.name, dst.name, rep.Copied, rep.Changed, dst.name)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the source store: bolt:FILE or postgres:URL")
	cmd.Flags().StringVar(&to, "to", "", "the destination store: bolt:FILE or postgres:URL")
	return cmd
}

// storeSpec is a store named on the command line.
type storeSpec struct {
	driver driver
	where  target
	name   string // the driver and, for a file, its path: never a URL's password
}

func parseStoreSpec(flag, spec string) (storeSpec, error) {
	name, where, ok := strings.Cut(spec, ":")
	d, known := drivers[name]
	if !ok || !known {
		return storeSpec{}, fmt.Errorf("%s must be DRIVER:WHERE with DRIVER one of %s, e.g. bolt:data/sendlater.db or postgres:postgres://user@host/db (got %q)",
			flag, strings.Join(driverNames(), ", "), spec)
	}
	s := storeSpec{driver: d, where: target{where, flag}, name: name}
	if !d.shared {
		s.name += " " + where
	}
	return s, nil
}
