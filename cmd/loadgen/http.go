package main

// The load's client: raw HTTP/1.1 requests over keep-alive connections,
// which cost the server's machine little CPU.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// request is the raw bytes of one HTTP/1.1 request, with the header lines
// headers (each "Name: value") beside its own.
func request(method, path, token string, body []byte, headers ...string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: loadgen\r\nUser-Agent: sendlater-loadgen\r\n", method, path)
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	if token != "" {
		fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", token)
	}
	if body != nil {
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// conn is one keep-alive connection.
type conn struct {
	addr string
	c    net.Conn
	r    *bufio.Reader
}

// do sends req and reads the whole reply; it redials a closed connection.
func (c *conn) do(req []byte) (int, error) {
	if c.c == nil {
		nc, err := net.Dial("tcp", c.addr)
		if err != nil {
			return 0, err
		}
		c.c, c.r = nc, bufio.NewReaderSize(nc, 64<<10)
	}
	if _, err := c.c.Write(req); err != nil {
		c.close()
		return 0, err
	}
	status, err := readReply(c.r)
	if err != nil {
		c.close()
	}
	return status, err
}

func (c *conn) close() {
	if c.c != nil {
		c.c.Close()
		c.c = nil
	}
}

// readReply reads one HTTP/1.1 reply, with a Content-Length or chunked body,
// and returns its status.
func readReply(r *bufio.Reader) (int, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, err
	}
	length, chunked := -1, false
	for {
		h, err := r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(h) <= 2 {
			break
		}
		k, v, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case asciiEqualFold(k, "content-length"):
			if length, err = strconv.Atoi(string(v)); err != nil {
				return 0, err
			}
		case asciiEqualFold(k, "transfer-encoding"):
			chunked = asciiEqualFold(v, "chunked")
		}
	}
	if !chunked {
		if length < 0 {
			return 0, errors.New("reply without length")
		}
		_, err := r.Discard(length)
		return status, err
	}
	for {
		sz, err := r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(sz)), 16, 64)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			for { // trailers, then the blank line
				t, err := r.ReadSlice('\n')
				if err != nil {
					return 0, err
				}
				if len(t) <= 2 {
					return status, nil
				}
			}
		}
		if _, err := r.Discard(int(n) + 2); err != nil {
			return 0, err
		}
	}
}

func asciiEqualFold(b []byte, s string) bool { return strings.EqualFold(string(b), s) }
