package main

// The server under load: started by loadgen or given, and the users and
// messages the scenarios need.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is a `sendlater serve` started by loadgen.
type server struct {
	bin, dir string
	temp     bool
	env      []string
	cmd      *exec.Cmd
	url      string
}

func startServer(bin, dir, logLevel string) (*server, error) {
	s := &server{bin: bin, dir: dir}
	if dir == "" {
		d, err := os.MkdirTemp("", "sendlater-loadgen-")
		if err != nil {
			return nil, err
		}
		s.dir, s.temp = d, true
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	s.url = "http://" + addr
	s.env = append(os.Environ(),
		"SENDLATER_DATA_DIR="+filepath.Join(s.dir, "data"),
		"SENDLATER_ADDR="+addr,
		"SENDLATER_BASE_URL="+s.url,
		"SENDLATER_LOG_LEVEL="+logLevel,
	)
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = s.env
	logFile, err := os.Create(filepath.Join(s.dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(s.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("no healthy server on %s after 15s (log: %s)", s.url, logFile.Name())
		}
	}
}

// cli runs a sendlater subcommand against the server's data directory (it
// goes through the admin socket).
func (s *server) cli(args ...string) error {
	cmd := exec.Command(s.bin, args...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("sendlater %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	if s.temp {
		os.RemoveAll(s.dir)
	}
}

// setup is what the scenarios need: users, their tokens, the 20 messages.
type setup struct {
	listToken, createToken, signinEmail string
}

func prepare(base string, srv *server) (*setup, error) {
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	email := func(who string) string { return who + "-" + stamp + "@loadgen.test" }
	var st setup
	var err error
	listEmail, createEmail := email("list"), email("create")
	st.signinEmail = email("signin")
	if st.listToken, err = signUp(base, listEmail); err != nil {
		return nil, err
	}
	if st.createToken, err = signUp(base, createEmail); err != nil {
		return nil, err
	}
	if _, err = signUp(base, st.signinEmail); err != nil {
		return nil, err
	}
	if srv != nil {
		for _, e := range []string{listEmail, createEmail} {
			if err := srv.cli("users", "set-plan", e, "pro"); err != nil {
				return nil, err
			}
		}
	} else {
		fmt.Printf("grant the Pro plan now: sendlater users set-plan %s pro; sendlater users set-plan %s pro\n"+
			"then press Enter\n", listEmail, createEmail)
		fmt.Scanln()
	}
	for i := range 20 {
		body, _ := json.Marshal(map[string]string{
			"title": fmt.Sprintf("Message %d", i+1), "name": "Ann", "recipient": "ann@example.com",
			"message": strings.Repeat("A letter for the future. ", 20), "interval": "12M",
		})
		if _, err := call(base, "POST", "/api/messages", st.listToken, body); err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
	}
	return &st, nil
}

func signUp(base, email string) (string, error) {
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	data, err := call(base, "POST", "/api/auth/signup", "", body)
	if err != nil {
		return "", err
	}
	var t struct {
		IDToken string `json:"idToken"`
	}
	if err := json.Unmarshal(data, &t); err != nil || t.IDToken == "" {
		return "", fmt.Errorf("sign-up reply %s", data)
	}
	return t.IDToken, nil
}

// call makes one API request with net/http and returns the envelope's data.
func call(base, method, path, token string, body []byte) (json.RawMessage, error) {
	req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var env struct {
		Status, Code, Message string
		Data                  json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return nil, fmt.Errorf("%s %s: %d, no envelope", method, path, resp.StatusCode)
	}
	if env.Status != "success" {
		return nil, fmt.Errorf("%s %s: %d %s %s", method, path, resp.StatusCode, env.Code, env.Message)
	}
	return env.Data, nil
}
