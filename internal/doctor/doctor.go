// Package doctor checks that the parts of an installation work and says
// what to fix, section by section: the configuration, the store, mail (the
// sending domain's DNS records and the SMTP server), the web server at
// base_url and the host (the admin socket, free disk). `sendlater doctor
// NAME` runs one section, `sendlater doctor` every one.
package doctor

import (
	"encoding/json"
	"fmt"
	"io"
)

// Check is one thing checked: passed, failed or skipped (OK, with what
// was not checked and why in Detail), what was found, and when it failed,
// what to do.
type Check struct {
	Name    string
	OK      bool
	Skipped bool
	Detail  string
	Fix     string
}

// Section is the checks of one part: Name is the section's command
// (`sendlater doctor NAME`), Title its heading.
type Section struct {
	Name   string
	Title  string
	Checks []Check
}

// Pass adds a check that passed.
func (s *Section) Pass(name, detail string) { s.pass(name, detail) }

// Fail adds a check that failed, with what to do.
func (s *Section) Fail(name, detail, fix string) { s.fail(name, detail, fix) }

// Skip adds a check that could not be made here, saying why: it counts as
// no problem.
func (s *Section) Skip(name, why string) {
	s.Checks = append(s.Checks, Check{Name: name, OK: true, Skipped: true, Detail: why})
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

// Write prints each section: a line per check with ✓, ✗ or - (skipped),
// and under a failed one what to fix. It returns how many checks failed.
func Write(w io.Writer, sections ...Section) (problems int) {
	for i, s := range sections {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, s.Title)
		for _, c := range s.Checks {
			mark := "✓"
			switch {
			case !c.OK:
				mark = "✗"
			case c.Skipped:
				mark = "-"
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

// jsonCheck is one check of WriteJSON's array.
type jsonCheck struct {
	Section string `json:"section"`
	Check   string `json:"check"`
	OK      bool   `json:"ok"`
	Skipped bool   `json:"skipped,omitempty"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix"`
}

// WriteJSON prints the sections' checks as one JSON array of {section,
// check, ok, skipped, detail, fix}, for scripts. It returns how many
// checks failed.
func WriteJSON(w io.Writer, sections ...Section) (problems int, err error) {
	out := []jsonCheck{}
	for _, s := range sections {
		for _, c := range s.Checks {
			out = append(out, jsonCheck{Section: s.Name, Check: c.Name, OK: c.OK, Skipped: c.Skipped, Detail: c.Detail, Fix: c.Fix})
		}
		problems += s.Problems()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return problems, enc.Encode(out)
}
