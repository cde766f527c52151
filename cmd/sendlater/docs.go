package main

//go:generate go run . docs --markdown ../../docs/cli

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newDocsCmd writes the command reference from the command tree: markdown
// (docs/cli, kept in the repository; a test fails when it is stale) and man
// pages (built into the release archives).
func newDocsCmd(a *app) *cobra.Command {
	var markdown, man string
	cmd := &cobra.Command{
		Use:    "docs",
		Short:  "Write the command reference as markdown and man pages",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if markdown == "" && man == "" {
				return usagef("give --markdown DIR, --man DIR or both")
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			if markdown != "" {
				if err := os.MkdirAll(markdown, 0o755); err != nil {
					return err
				}
				if err := doc.GenMarkdownTree(root, markdown); err != nil {
					return err
				}
			}
			if man != "" {
				if err := os.MkdirAll(man, 0o755); err != nil {
					return err
				}
				header := &doc.GenManHeader{Title: "SENDLATER", Section: "1", Source: "Sendlater " + version, Manual: "Sendlater Manual"}
				if err := doc.GenManTree(root, header, man); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&markdown, "markdown", "", "write one markdown file per command into this directory")
	cmd.Flags().StringVar(&man, "man", "", "write one man page (section 1) per command into this directory")
	return cmd
}
