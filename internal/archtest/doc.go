// Package archtest holds the architecture test: the arrows of DESIGN.md
// point inward, checked on the packages' real dependencies (go list). It has
// no code of its own.
package archtest
