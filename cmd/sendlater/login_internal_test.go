package main

import (
	"os"
	"testing"
)

// A login saved before the token's name and date were kept names the token
// as login names it on this machine, and gives its id.
func TestAnOlderLoginsTokenIsNamedAsLoginNamesIt(t *testing.T) {
	host, _ := os.Hostname()
	got := (&login{TokenID: "tok-1"}).tokenAsListed()
	if want := `"sendlater on ` + cmp(host, "this machine") + `" (probably; its id is tok-1)`; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}
