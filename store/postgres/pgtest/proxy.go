package pgtest

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Proxy forwards a local port to the test server and can cut every
// connection and refuse new ones, as a database that went away: URL is the
// database's URL through it.
type Proxy struct {
	URL    string
	target string
	addr   string
	mu     sync.Mutex
	l      net.Listener
	conns  []net.Conn
}

// StartProxy starts a proxy to the server of dbURL, closed after tb.
func StartProxy(tb testing.TB, dbURL string) *Proxy {
	tb.Helper()
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{target: net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p.addr = l.Addr().String()
	p.URL = strings.Replace(dbURL, cfg.Host+":"+fmt.Sprint(cfg.Port), p.addr, 1)
	p.serve(l)
	tb.Cleanup(p.Down)
	return p
}

func (p *Proxy) serve(l net.Listener) {
	p.mu.Lock()
	p.l = l
	p.mu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
}

// Down closes the listener and every connection.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.l.Close()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Up listens again on the same address.
func (p *Proxy) Up() {
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		panic(err)
	}
	p.serve(l)
}
