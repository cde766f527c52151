// Package ui embeds the built React SPA.
package ui

import (
	"embed"
	"io/fs"
)

// dist always holds .gitkeep, so this compiles before the SPA is built.
//
//go:embed all:dist
var dist embed.FS

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
