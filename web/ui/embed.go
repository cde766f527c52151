// Package ui embeds the built React SPA and its page table.
package ui

import (
	"embed"
	"io/fs"
)

// dist always holds .gitkeep, so this compiles before the SPA is built.
//
//go:embed all:dist
var dist embed.FS

// pages is the SPA's page table, which the server reads for each page's head
// tags; it is source, not build output, so it is there before any build.
//
//go:embed src/config/pages.json
var pages []byte

// FS returns the SPA build, rooted at dist.
func FS() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // "dist" is a constant, valid path: fs.Sub cannot fail on it.
	}
	return sub
}

// Built reports whether the SPA was built into dist before compiling.
func Built() bool {
	_, err := fs.Stat(FS(), "index.html")
	return err == nil
}

// Pages returns src/config/pages.json: the SPA's pages with their paths,
// titles and descriptions.
func Pages() []byte { return pages }
