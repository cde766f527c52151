package pgtest

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Proxy forwards a local port to the test server and can cut every
// connection and refuse new ones, as a database that went away, cut some
// connections only, or cut one exactly at a COMMIT: URL is the database's
// URL through it. It reads the protocol's messages (not their contents,
// beyond the start-up's application_name and the statements' text) to
// know where a COMMIT is and where the server's reply to it ends.
type Proxy struct {
	URL    string
	target string
	addr   string
	mu     sync.Mutex
	l      net.Listener
	conns  []*proxyConn
	commit *CommitCut // armed by CutAtCommit
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
			pc := &proxyConn{c: c, s: s}
			p.mu.Lock()
			p.conns = append(p.conns, pc)
			p.mu.Unlock()
			go p.front(pc)
		}
	}()
}

// Down closes the listener and every connection.
func (p *Proxy) Down() {
	p.mu.Lock()
	p.l.Close()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

// Up listens again on the same address.
func (p *Proxy) Up() {
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		panic(err)
	}
	p.serve(l)
}

// Cut closes the connections whose application_name (as the client sent
// it at start-up) app accepts, or every connection when app is nil, and
// goes on accepting new ones: a network that dropped them. It returns how
// many it closed.
func (p *Proxy) Cut(app func(name string) bool) int {
	p.mu.Lock()
	var cut []*proxyConn
	kept := p.conns[:0]
	for _, c := range p.conns {
		if app == nil || app(c.appName()) {
			cut = append(cut, c)
		} else {
			kept = append(kept, c)
		}
	}
	p.conns = kept
	p.mu.Unlock()
	for _, c := range cut {
		c.close()
	}
	return len(cut)
}

// CommitCut is a cut armed by CutAtCommit; Done is closed once it
// happened.
type CommitCut struct {
	Done      chan struct{}
	committed bool
	of        string
	once      sync.Once
}

func (c *CommitCut) fire() { c.once.Do(func() { close(c.Done) }) }

// CutAtCommit arms a cut of the next COMMIT of a transaction one of whose
// statements contains of: an explicit COMMIT, or the end of a statement
// sent outside a transaction, which commits by itself. With committed, the
// COMMIT reaches the server and the connection is cut once the server
// answered (the transaction committed), before the answer reaches the
// client: an acknowledgement lost. Without, the connection is cut before
// the COMMIT leaves (the server rolls the transaction back).
func (p *Proxy) CutAtCommit(committed bool, of string) *CommitCut {
	c := &CommitCut{Done: make(chan struct{}), committed: committed, of: of}
	p.mu.Lock()
	p.commit = c
	p.mu.Unlock()
	return c
}

// takeCommit returns the armed commit cut, disarming it, when one of the
// statements holds what it waits for.
func (p *Proxy) takeCommit(statements []string) *CommitCut {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.commit
	if c == nil || !slices.ContainsFunc(statements, func(s string) bool { return strings.Contains(s, c.of) }) {
		return nil
	}
	p.commit = nil
	return c
}
