package main

import (
	"testing"

	"github.com/sendlater/sendlater/web"
)

// The files table's DOWNLOADS column sums the recipients' counts.
func TestDownloadsCell(t *testing.T) {
	for _, c := range []struct {
		in   []web.FileDownloadJSON
		want string
	}{
		{nil, "-"},
		{[]web.FileDownloadJSON{{Recipient: "ann@example.com", Count: 2}}, "2 by 1 recipient"},
		{[]web.FileDownloadJSON{{Recipient: "ann@example.com", Count: 2}, {Recipient: "bo@example.com", Count: 3}}, "5 by 2 recipients"},
	} {
		if got := downloadsCell(c.in); got != c.want {
			t.Errorf("downloadsCell(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
