package inbound

import (
	"net"
	"sync"
)

// heldMax bounds the bytes a connection holds before writing them anyway.
const heldMax = 16 << 10

// flushListener accepts connections whose replies go out in one write per
// turn of the dialogue (flushConn).
type flushListener struct{ net.Listener }

func (l flushListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &flushConn{Conn: c}, nil
}

// flushConn holds what the server writes until it next reads (or closes
// the connection): go-smtp writes each reply at once, so the three
// replies to a pipelined MAIL, RCPT and DATA (RFC 2920, which the
// listener announces and mail servers use) took three writes, a system
// call and a wakeup of the sender each; held, they go out in one, just
// before the server waits for what the client sends next. Nothing is
// held while the server waits: every wait is a Read, which writes first.
// A write's error is the next Read's (or Close's).
type flushConn struct {
	net.Conn
	mu   sync.Mutex // Close may come from another goroutine (Server.Close)
	held []byte
	err  error
}

func (c *flushConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	if len(c.held)+len(p) > heldMax {
		if err := c.flush(); err != nil {
			return 0, err
		}
	}
	c.held = append(c.held, p...)
	return len(p), nil
}

// flush writes what is held; c.mu is held.
func (c *flushConn) flush() error {
	if len(c.held) > 0 && c.err == nil {
		_, c.err = c.Conn.Write(c.held)
		c.held = c.held[:0]
	}
	return c.err
}

func (c *flushConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	err := c.flush()
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *flushConn) Close() error {
	c.mu.Lock()
	c.flush()
	c.mu.Unlock()
	return c.Conn.Close()
}
