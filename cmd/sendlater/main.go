// Command sendlater is the whole product: the web server and its scheduler,
// the admin CLI and the TUI, over one core.
package main

import (
	"fmt"
	"os"
	// The zone database in the binary: an author's zone must not become UTC
	// on a host or container without /usr/share/zoneinfo.
	_ "time/tzdata"

	"github.com/sendlater/sendlater/core"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", errorText(err))
		os.Exit(1)
	}
}

// errorText is what a user reads of an error: an application error's message
// and fields, any other error as it is.
func errorText(err error) string {
	e, ok := err.(*core.Error)
	if !ok {
		return err.Error()
	}
	s := e.Message
	for k, v := range e.Fields {
		s += fmt.Sprintf("\n  %s: %s", k, v)
	}
	return s
}
