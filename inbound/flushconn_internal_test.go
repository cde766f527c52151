package inbound

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// What the server writes is held until it reads, then goes out in one
// write; Close writes what is held before closing.
func TestFlushConnWritesBeforeEachRead(t *testing.T) {
	server, client := net.Pipe()
	c := &flushConn{Conn: server}
	replies := []string{"250 2.0.0 Roger, accepting mail from <>\r\n", "250 2.0.0 I'll make sure <x> gets this\r\n",
		"354 2.0.0 Go ahead. End your data with <CR><LF>.<CR><LF>\r\n"}
	for _, r := range replies {
		c.Write([]byte(r))
	}
	buf := make([]byte, 4096)
	client.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, err := client.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the replies went out before the server read (%q, %v)", buf[:n], err)
	}
	client.SetReadDeadline(time.Time{})
	read := make(chan error, 1)
	go func() { _, err := c.Read(make([]byte, 16)); read <- err }()
	n, err := client.Read(buf)
	if want := strings.Join(replies, ""); err != nil || string(buf[:n]) != want {
		t.Fatalf("one read got %q (%v): want the three replies, %q", buf[:n], err, want)
	}
	client.Write([]byte("hi"))
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("221 2.0.0 Bye\r\n"))
	go c.Close()
	if b, err := io.ReadAll(client); err != nil || string(b) != "221 2.0.0 Bye\r\n" {
		t.Fatalf("after Close the client read %q (%v)", b, err)
	}
}
