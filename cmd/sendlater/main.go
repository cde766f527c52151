// Command sendlater is the whole product: the web server and its scheduler,
// the admin CLI and the TUI, over one core.
package main

import (
	"os"
	// The zone database in the binary: an author's zone must not become UTC
	// on a host or container without /usr/share/zoneinfo.
	_ "time/tzdata"
)

func main() {
	os.Exit(execute(newRootCmd(), os.Args[1:], os.Stderr))
}
