// Package doctor checks that the parts of an installation work and says
// what to fix, section by section: Mail (the sending domain's DNS records
// and the SMTP server) is `sendlater doctor mail`; `sendlater doctor` runs
// every section.
package doctor

import (
	"fmt"
	"io"
)

// Check is one thing checked: passed or not, what was found, and when it
// failed, what to do.
type Check struct {
	Name   string
	OK     bool
	Detail string
	Fix    string
}

// Section is the checks of one part.
type Section struct {
	Title  string
	Checks []Check
}

func (s *Section) pass(name, detail string) {
	s.Checks = append(s.Checks, Check{Name: name, OK: true, Detail: detail})
}

func (s *Section) fail(name, detail, fix string) {
	s.Checks = append(s.Checks, Check{Name: name, Detail: detail, Fix: fix})
}

// Problems is how many checks of s failed.
func (s Section) Problems() int {
	n := 0
	for _, c := range s.Checks {
		if !c.OK {
			n++
		}
	}
	return n
}

// Write prints each section: a line per check with ✓ or ✗, and under a
// failed one what to fix. It returns how many checks failed.
func Write(w io.Writer, sections ...Section) (problems int) {
	for i, s := range sections {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, s.Title)
		for _, c := range s.Checks {
			mark := "✓"
			if !c.OK {
				mark = "✗"
			}
			fmt.Fprintf(w, "  %s %s: %s\n", mark, c.Name, c.Detail)
			if !c.OK && c.Fix != "" {
				fmt.Fprintf(w, "      fix: %s\n", c.Fix)
			}
		}
		problems += s.Problems()
	}
	return problems
}
