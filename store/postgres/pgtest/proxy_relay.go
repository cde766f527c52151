package pgtest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
)

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
