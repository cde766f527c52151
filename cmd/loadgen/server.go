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

// servers are the `sendlater serve` processes loadgen started: one on a
// bbolt store, or replicas on one PostgreSQL database, all with the same
// key and config and the SMTP sink as their mail server.
type servers struct {
	bin, dir string
	temp     bool
	list     []*server
	pg       *pgStore // nil on bbolt
	sink     *sink
}

// server is one of them.
type server struct {
	env []string
	cmd *exec.Cmd
	url string
}

type serversConfig struct {
	bin, dir, logLevel string
	replicas           int
	postgres           string   // a database URL: store.driver postgres in a new schema of it
	env                []string // more of the servers' environment (the observe scenario's)
	profileAddr        string   // the metrics listener serving /debug/pprof/ (-observe-profile)
}

func startServers(c serversConfig) (*servers, error) {
	ss := &servers{bin: c.bin, dir: c.dir}
	if ss.dir == "" {
		d, err := os.MkdirTemp("", "sendlater-loadgen-")
		if err != nil {
			return nil, err
		}
		ss.dir, ss.temp = d, true
	}
	var err error
	if ss.sink, err = startSink(); err != nil {
		return nil, err
	}
	addrs := make([]string, c.replicas)
	for i := range addrs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		addrs[i] = ln.Addr().String()
		ln.Close()
	}
	env := append(os.Environ(),
		"SENDLATER_BASE_URL=http://"+addrs[0],
		"SENDLATER_LOG_LEVEL="+c.logLevel,
		"SENDLATER_SCHEDULER_INTERVAL=1s",
		"SENDLATER_MAIL_SMTP_HOST=127.0.0.1",
		"SENDLATER_MAIL_SMTP_PORT="+strconv.Itoa(ss.sink.port),
		"SENDLATER_MAIL_SMTP_TLS=none",
	)
	env = append(env, c.env...)
	if c.postgres != "" {
		if ss.pg, err = openPostgres(c.postgres); err != nil {
			return nil, err
		}
		env = append(env, ss.pg.env()...)
	}
	for i, addr := range addrs {
		dir := filepath.Join(ss.dir, fmt.Sprintf("replica-%d", i))
		s, err := startServer(c.bin, dir, addr, append(env, "SENDLATER_DATA_DIR="+filepath.Join(dir, "data"), "SENDLATER_ADDR="+addr))
		if s != nil {
			ss.list = append(ss.list, s)
		}
		if err != nil {
			ss.stop()
			return nil, err
		}
	}
	return ss, nil
}

func startServer(bin, dir, addr string, env []string) (*server, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	s := &server{env: env, url: "http://" + addr, cmd: exec.Command(bin, "serve")}
	s.cmd.Env = env
	logFile, err := os.Create(filepath.Join(dir, "serve.log"))
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
			return s, fmt.Errorf("no healthy server on %s after 15s (log: %s)", s.url, logFile.Name())
		}
	}
}

// addrs are the replicas' host:port.
func (ss *servers) addrs() []string {
	var out []string
	for _, s := range ss.list {
		out = append(out, strings.TrimPrefix(s.url, "http://"))
	}
	return out
}

func (ss *servers) pids() []int {
	var out []int
	for _, s := range ss.list {
		out = append(out, s.cmd.Process.Pid)
	}
	return out
}

// cli runs a sendlater subcommand with the first replica's config (through
// its admin socket on bbolt, on the database on PostgreSQL).
func (ss *servers) cli(args ...string) error {
	cmd := exec.Command(ss.bin, args...)
	cmd.Env = ss.list[0].env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("sendlater %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (ss *servers) stop() {
	for _, s := range ss.list {
		s.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, s := range ss.list {
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
	if ss.pg != nil {
		ss.pg.close()
	}
	ss.sink.close()
	if ss.temp {
		os.RemoveAll(ss.dir)
	}
}

// setup is what the scenarios need: users, their tokens, the 20 messages.
type setup struct {
	listToken, createToken, signinEmail string
}

func prepare(base string, srv *servers) (*setup, error) {
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
