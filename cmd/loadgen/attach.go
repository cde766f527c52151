package main

// The attachments' scenarios (issue 33, docs/attachments.md "Proofs"):
// attach-rss uploads a 25 MB file through the resumable protocol (POST,
// then one PATCH a part) and downloads it, sampling the server's VmRSS
// and RssAnon every 10 ms; attach-concurrent (attach_concurrent.go) runs
// 8 uploads at once beside another user's list.

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// attachRSSSize is the file of attach-rss: the Pro plan's bytes a message.
const attachRSSSize = 25_000_000

// fileClient uploads and downloads one author's files over HTTP/1.1
// keep-alive connections (net/http: the protocol's headers are easier
// read there than on loadgen's raw connections).
type fileClient struct {
	base, token string
	http        *http.Client
}

func newFileClient(base, token string) *fileClient {
	return &fileClient{base: base, token: token, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
}

// proAuthor signs up a new author, grants the Pro plan (as prepare does)
// and makes a message for the files.
func proAuthor(base string, srv *servers, who string) (token, messageID string, err error) {
	email := who + "-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "@loadgen.test"
	if token, err = signUp(base, email); err != nil {
		return "", "", err
	}
	if srv == nil {
		return "", "", fmt.Errorf("the attachments' scenarios need -bin (they grant the Pro plan)")
	}
	if err := srv.cli("users", "set-plan", email, "pro"); err != nil {
		return "", "", err
	}
	body, _ := json.Marshal(map[string]string{"title": "Files", "name": "Ann", "recipient": "ann@example.com",
		"message": "The papers are attached.", "interval": "12M"})
	data, err := call(base, "POST", "/api/messages", token, body)
	if err != nil {
		return "", "", err
	}
	var m struct{ ID string }
	if err := json.Unmarshal(data, &m); err != nil || m.ID == "" {
		return "", "", fmt.Errorf("message reply %s", data)
	}
	return token, m.ID, nil
}

func (c *fileClient) do(method, path string, body io.Reader, headers ...string) (*http.Response, error) {
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.http.Do(req)
}

// upload makes a file of data on the message and sends its parts, one
// PATCH each from the offset the server gives; it returns the file's path.
func (c *fileClient) upload(messageID, name string, data []byte) (string, error) {
	body, _ := json.Marshal(map[string]any{"name": name, "size": len(data)})
	resp, err := c.do("POST", "/api/messages/"+messageID+"/files", bytes.NewReader(body), "Content-Type", "application/json")
	if err != nil {
		return "", err
	}
	reply, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	path := resp.Header.Get("Location")
	partSize, _ := strconv.Atoi(resp.Header.Get("Upload-Part-Size"))
	if resp.StatusCode != http.StatusCreated || path == "" || partSize <= 0 {
		return "", fmt.Errorf("POST files: %d %s", resp.StatusCode, reply)
	}
	for off := 0; off < len(data) || off == 0; {
		end := min(off+partSize, len(data))
		resp, err := c.do("PATCH", path, bytes.NewReader(data[off:end]),
			"Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(off))
		if err != nil {
			return path, err
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		next, _ := strconv.Atoi(resp.Header.Get("Upload-Offset"))
		if resp.StatusCode != http.StatusNoContent || next != end {
			return path, fmt.Errorf("PATCH at %d: %d, offset %q: %s", off, resp.StatusCode, resp.Header.Get("Upload-Offset"), reply)
		}
		if off = end; end == len(data) {
			break
		}
	}
	return path, nil
}

// download reads the file's bytes back and compares them with data as
// they arrive (nothing held whole on this side either).
func (c *fileClient) download(path string, data []byte) error {
	resp, err := c.do("GET", path+"/content", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET content: %d", resp.StatusCode)
	}
	buf := make([]byte, 256<<10)
	off := 0
	for {
		n, err := resp.Body.Read(buf)
		if off+n > len(data) || !bytes.Equal(buf[:n], data[off:off+n]) {
			return fmt.Errorf("the download differs from the upload at byte %d or after", off)
		}
		off += n
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if off != len(data) {
		return fmt.Errorf("the download has %d bytes, the upload %d", off, len(data))
	}
	return nil
}

func (c *fileClient) remove(path string) error {
	resp, err := c.do("DELETE", path, nil)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("DELETE %s: %d", path, resp.StatusCode)
	}
	return nil
}

// randomFile is n random bytes (nothing for a compressor to shrink) with
// a PDF's first bytes.
func randomFile(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	copy(b, "%PDF-1.7\n")
	return b
}

// attachRSS runs the attach-rss scenario: idle VmRSS, then its peaks while
// a 25 MB file goes up and while it comes back down, each sampled every
// 10 ms, and the deltas against the limit (+16 MiB).
func attachRSS(base string, srv *servers, pids []int, rounds int) {
	if len(pids) == 0 {
		fatalf("the attach-rss scenario reads the server's memory: give -bin")
	}
	token, messageID, err := proAuthor(base, srv, "attach-rss")
	if err != nil {
		fatalf("attach-rss setup: %v", err)
	}
	c := newFileClient(base, token)
	// A warm-up file of two parts up and down first, so idle is a server
	// that has run this code: the binary's pages of it (file-backed, in
	// VmRSS) and the first part's buffers are then there already.
	warm := randomFile(2 << 20)
	if path, err := c.upload(messageID, "warm-up.pdf", warm); err != nil || c.download(path, warm) != nil || c.remove(path) != nil {
		fatalf("attach-rss warm-up: %v", err)
	}
	data := randomFile(attachRSSSize)
	fmt.Printf("\nattach-rss: a %d-byte file up (POST, then PATCH parts) and down, VmRSS / RssAnon sampled every 10 ms, after a warm-up file of 2 MiB\n", len(data))
	fmt.Printf("%-6s %20s %20s %20s %12s %12s %8s %8s\n", "round", "idle RSS (anon)", "upload peak (anon)", "download peak (anon)",
		"Δ RSS", "Δ anon", "up s", "down s")
	for round := range max(rounds, 1) {
		time.Sleep(2 * time.Second) // the setup's or last round's work settles
		idle, idleAnon := rss(pids), rssAnon(pids)
		mem := watchRSSEvery(pids, 10*time.Millisecond)
		t0 := time.Now()
		path, err := c.upload(messageID, fmt.Sprintf("will-%d.pdf", round), data)
		up := time.Since(t0)
		upPeak, upAnon := mem.stop()
		if err != nil {
			fatalf("attach-rss upload: %v", err)
		}
		mem = watchRSSEvery(pids, 10*time.Millisecond)
		t0 = time.Now()
		err = c.download(path, data)
		down := time.Since(t0)
		downPeak, downAnon := mem.stop()
		if err != nil {
			fatalf("attach-rss download: %v", err)
		}
		delta, deltaAnon := max(upPeak, downPeak)-idle, max(upAnon, downAnon)-idleAnon
		verdict := "within"
		if delta > 16<<20 {
			verdict = "OVER"
		}
		fmt.Printf("%-6d %9.1f (%6.1f) MiB %9.1f (%6.1f) MiB %9.1f (%6.1f) MiB %+8.1f MiB %+8.1f MiB %8.2f %8.2f  %s +16 MiB, bytes equal\n",
			round+1, mib(idle), mib(idleAnon), mib(upPeak), mib(upAnon), mib(downPeak), mib(downAnon),
			mib(delta), mib(deltaAnon), up.Seconds(), down.Seconds(), verdict)
		if err := c.remove(path); err != nil {
			fatalf("attach-rss: %v", err)
		}
	}
}

// mbps is bytes over d in MB (10^6) a second.
func mbps(bytes int64, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return strings.TrimSpace(fmt.Sprintf("%8.1f MB/s", float64(bytes)/1e6/d.Seconds()))
}
