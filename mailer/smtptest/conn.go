package smtptest

import (
	"bytes"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
)

// tbLogger sends the server's error log to the test log until the test
// ends; connection goroutines may still report after that, which testing
// does not allow.
type tbLogger struct {
	mu      sync.Mutex
	tb      testing.TB
	stopped bool
}

func (l *tbLogger) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
}

func (l *tbLogger) Printf(format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped {
		l.tb.Logf("smtptest: "+format, v...)
	}
}

func (l *tbLogger) Println(v ...any) { l.Printf("%s", fmt.Sprintln(v...)) }

// countingListener counts the commands its connections' clients send.
type countingListener struct {
	net.Listener
	server *Server
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, server: l.server}, nil
}

// countingConn reads the client's lines as they pass, counting the first
// word of each outside a message's data.
type countingConn struct {
	net.Conn
	server *Server
	line   []byte
	inData bool
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	var verbs []string
	for _, b := range p[:n] {
		if b != '\n' {
			c.line = append(c.line, b)
			continue
		}
		if verb := c.command(strings.TrimRight(string(c.line), "\r")); verb != "" {
			verbs = append(verbs, verb)
		}
		c.line = c.line[:0]
	}
	if len(verbs) > 0 {
		c.server.mu.Lock()
		if c.server.commands == nil {
			c.server.commands = map[string]int{}
		}
		for _, v := range verbs {
			c.server.commands[v]++
		}
		if !c.server.discard {
			c.server.arrivals = append(c.server.arrivals, verbs)
		}
		c.server.mu.Unlock()
	}
	return n, err
}

// command returns the verb of a line outside a message's data, "" for a
// line of the data.
func (c *countingConn) command(line string) string {
	if c.inData {
		c.inData = line != "."
		return ""
	}
	verb, _, _ := strings.Cut(line, " ")
	verb = strings.ToUpper(verb)
	c.inData = verb == "DATA"
	return verb
}

// pipeliningLine is go-smtp's offer of PIPELINING in its EHLO reply (never
// the reply's last line).
var pipeliningLine = []byte("250-PIPELINING\r\n")

// Write leaves PIPELINING out of the EHLO reply when the server was started
// WithoutPipelining (go-smtp always offers it; the reply goes out in one
// write).
func (c *countingConn) Write(p []byte) (int, error) {
	if c.server.noPipelining {
		if i := bytes.Index(p, pipeliningLine); i >= 0 {
			q := append(slices.Clip(p[:i]), p[i+len(pipeliningLine):]...)
			if _, err := c.Conn.Write(q); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	return c.Conn.Write(p)
}
