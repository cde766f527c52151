package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sendlater/sendlater/mailer"
)

func newDKIMCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dkim",
		Short: "DKIM signing of the emails the server sends",
	}
	cmd.AddCommand(newDKIMKeygenCmd(a))
	return cmd
}

func newDKIMKeygenCmd(a *app) *cobra.Command {
	var kind, out, domain, selector string
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Write a new DKIM private key (mode 0600) and print the DNS TXT record to publish",
		Long: "Writes a new DKIM private key to --out (default mail.dkim.private_key_file), never over an\n" +
			"existing file, and prints the TXT record that publishes its public half at\n" +
			"<selector>._domainkey.<domain> (default mail.dkim.selector and mail.dkim.domain).\n" +
			"rsa (2048 bits) is verified by every receiver; ed25519 (RFC 8463) is shorter but not yet\n" +
			"verified everywhere.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d := a.cfg.Mail.DKIM
			out, domain, selector = orDefault(out, d.PrivateKeyFile), orDefault(domain, d.Domain), orDefault(selector, d.Selector)
			if out == "" {
				return usagef("dkim keygen: give --out FILE, or set mail.dkim.private_key_file")
			}
			if domain == "" || selector == "" {
				return usagef("dkim keygen: give --domain and --selector, or set mail.dkim.domain and mail.dkim.selector")
			}
			if !dnsName.MatchString(domain) || !strings.Contains(domain, ".") || !dnsName.MatchString(selector) {
				return usagef("dkim keygen: --domain %q and --selector %q must be a domain (example.com) and a DNS label (s2026)", domain, selector)
			}
			key, pemKey, err := mailer.GenerateDKIMKey(kind)
			if err != nil {
				return usagef("dkim keygen: --type: %v", err)
			}
			record, err := mailer.DKIMRecord(key)
			if err != nil {
				return err
			}
			if abs, err := filepath.Abs(out); err == nil {
				out = abs
			}
			if err := writeNewKeyFile(out, pemKey); err != nil {
				return fmt.Errorf("dkim keygen: %w", err)
			}
			fmt.Fprintf(a.stderr, "Wrote the %s private key to %s (mode 0600). Publish this TXT record, then set\n"+
				"mail.dkim.domain: %s, mail.dkim.selector: %s, mail.dkim.private_key_file: %s\n"+
				"and check it with `sendlater doctor mail`:\n\n", kind, out, domain, selector, out)
			fmt.Fprintf(a.stdout, "%s._domainkey.%s. IN TXT %s\n", selector, strings.ToLower(domain), quoteTXT(record))
			return nil
		},
	}
	cmd.Flags().StringVar(&kind, "type", mailer.DKIMKeyRSA, "the key: rsa (2048 bits) or ed25519")
	cmd.Flags().StringVar(&out, "out", "", "the private key file to write (default mail.dkim.private_key_file)")
	cmd.Flags().StringVar(&domain, "domain", "", "the signing domain (default mail.dkim.domain)")
	cmd.Flags().StringVar(&selector, "selector", "", "the selector (default mail.dkim.selector)")
	return cmd
}

func orDefault(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// writeNewKeyFile writes content to file, mode 0600, refusing to replace
// a file that exists (a key in use).
func writeNewKeyFile(file string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists: a key in use is never replaced; move it away first, or choose another --out", file)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		os.Remove(file)
		return err
	}
	return f.Close()
}

// quoteTXT is value as a zone file's TXT data: quoted strings of at most
// 255 bytes each (an RSA key's record is longer than one string holds).
func quoteTXT(value string) string {
	var parts []string
	for len(value) > 255 {
		parts = append(parts, `"`+value[:255]+`"`)
		value = value[255:]
	}
	parts = append(parts, `"`+value+`"`)
	return strings.Join(parts, " ")
}
