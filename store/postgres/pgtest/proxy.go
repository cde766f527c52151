package pgtest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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

type proxyConn struct {
	c, s    net.Conn
	mu      sync.Mutex
	app     string     // application_name of the start-up message
	swallow *CommitCut // the server's replies are dropped until ReadyForQuery
	once    sync.Once
}

func (pc *proxyConn) appName() string {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.app
}

func (pc *proxyConn) close() {
	pc.once.Do(func() {
		pc.c.Close()
		pc.s.Close()
	})
}

// Codes of the untyped messages a client may send first.
const (
	codeCancel  = 80877102
	codeSSL     = 80877103
	codeGSSENC  = 80877104
	maxUntyped  = 1 << 16
	maxMessage  = 1 << 30
	typeSync    = 'S'
	typeQuery   = 'Q'
	typeParse   = 'P'
	typeBind    = 'B'
	typeReadyFQ = 'Z'
)

// front forwards what the client sends: the start-up, then message after
// message, watching for an armed COMMIT.
func (p *Proxy) front(pc *proxyConn) {
	defer pc.close()
	r := bufio.NewReader(pc.c)
	for {
		msg, err := readUntyped(r)
		if err != nil {
			return
		}
		if _, err := pc.s.Write(msg); err != nil {
			return
		}
		switch binary.BigEndian.Uint32(msg[4:8]) {
		case codeSSL, codeGSSENC: // one byte answers: encrypted or not
			var b [1]byte
			if _, err := io.ReadFull(pc.s, b[:]); err != nil {
				return
			}
			if _, err := pc.c.Write(b[:]); err != nil {
				return
			}
			if b[0] != 'N' {
				pc.raw(r)
				return
			}
			continue
		case codeCancel:
			pc.raw(r)
			return
		}
		pc.mu.Lock()
		pc.app = startupParam(msg[8:], "application_name")
		pc.mu.Unlock()
		break
	}
	go p.back(pc)
	w := bufio.NewWriter(pc.s)
	tx := &txWatch{stmts: map[string]string{}}
	var armed *CommitCut // a COMMIT went by: cut after its Sync
	for {
		typ, msg, err := readTyped(r)
		if err != nil {
			return
		}
		if cut := p.commitIn(typ, msg[5:], tx); cut != nil {
			if !cut.committed {
				pc.close()
				cut.fire()
				return
			}
			armed = cut
		}
		if armed != nil && (typ == typeSync || typ == typeQuery) {
			pc.mu.Lock()
			pc.swallow = armed
			pc.mu.Unlock()
			armed = nil
		}
		if _, err := w.Write(msg); err != nil {
			return
		}
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}

// txWatch follows a connection's transactions from the statements it runs.
type txWatch struct {
	stmts map[string]string // prepared statements' text by name
	in    bool              // inside BEGIN ... COMMIT
	ran   []string          // the statements of the transaction
}

// commitIn returns the armed commit cut when the message commits what it
// waits for: a COMMIT (a simple query, or the bind of a statement prepared
// as one), or a statement outside a transaction. It keeps the text of
// prepared statements.
func (p *Proxy) commitIn(typ byte, body []byte, tx *txWatch) *CommitCut {
	var sql string
	switch typ {
	case typeParse:
		name, rest := cstring(body)
		query, _ := cstring(rest)
		tx.stmts[name] = query
		return nil
	case typeBind:
		_, rest := cstring(body)
		name, _ := cstring(rest)
		sql = tx.stmts[name]
	case typeQuery:
		sql, _ = cstring(body)
	default:
		return nil
	}
	word, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(sql)), " ")
	switch strings.TrimSuffix(word, ";") {
	case "begin":
		tx.in, tx.ran = true, nil
	case "commit":
		tx.in = false
		return p.takeCommit(tx.ran)
	case "rollback":
		tx.in = false
	default:
		if tx.in {
			tx.ran = append(tx.ran, sql)
			return nil
		}
		return p.takeCommit([]string{sql})
	}
	return nil
}

// back forwards what the server sends, dropping the reply to a cut COMMIT
// and cutting the connection at its end.
func (p *Proxy) back(pc *proxyConn) {
	defer pc.close()
	r := bufio.NewReader(pc.s)
	w := bufio.NewWriter(pc.c)
	for {
		typ, msg, err := readTyped(r)
		if err != nil {
			return
		}
		pc.mu.Lock()
		cut := pc.swallow
		pc.mu.Unlock()
		if cut != nil {
			if typ == typeReadyFQ { // the server is done: it committed
				pc.close()
				cut.fire()
				return
			}
			continue
		}
		if _, err := w.Write(msg); err != nil {
			return
		}
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}

// raw copies both ways without reading the messages (an encrypted
// connection, a cancel request).
func (pc *proxyConn) raw(r io.Reader) {
	go func() { io.Copy(pc.c, pc.s); pc.close() }()
	io.Copy(pc.s, r)
}

var errTooLong = errors.New("pgtest proxy: message too long")

// readUntyped reads a message of the start-up phase: a length that counts
// itself, then the rest.
func readUntyped(r *bufio.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n < 8 || n > maxUntyped {
		return nil, errTooLong
	}
	msg := make([]byte, n)
	copy(msg, head[:])
	_, err := io.ReadFull(r, msg[4:])
	return msg, err
}

// readTyped reads a message: its type byte, a length that counts itself,
// then the rest; msg is all of it.
func readTyped(r *bufio.Reader) (typ byte, msg []byte, err error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[1:])
	if n < 4 || n > maxMessage {
		return 0, nil, errTooLong
	}
	msg = make([]byte, 1+n)
	copy(msg, head[:])
	_, err = io.ReadFull(r, msg[5:])
	return head[0], msg, err
}

// cstring splits a NUL-terminated string off b.
func cstring(b []byte) (string, []byte) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return string(b), nil
	}
	return string(b[:i]), b[i+1:]
}

// startupParam is the value of key among the start-up message's
// NUL-terminated pairs.
func startupParam(b []byte, key string) string {
	for len(b) > 0 {
		var k, v string
		k, b = cstring(b)
		if k == "" {
			return ""
		}
		v, b = cstring(b)
		if k == key {
			return v
		}
	}
	return ""
}
