package main

// The signin-2fa scenario: sign-ins to accounts with an authenticator app,
// each two requests (POST /api/auth/signin, which answers a challenge, then
// POST /api/auth/second-factor with a code), timed from the scheduled start
// to the second reply, at the signin scenario's rate, for a side by side
// with it (docs/benchmarks.md).

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/pquerna/otp/totp"
)

// factorAccount is an account with the app on: its email and secret, and
// the sign-ins it has left. A code's time step is used once, so each
// account signs in once with the app, then with its recovery codes.
type factorAccount struct {
	email, secret string
	recovery      []string
	usedTOTP      bool
}

// factorAccounts signs up n accounts and turns their apps on. Sign-ups
// count against the client's address (50 per 15 minutes with the other
// scenarios' 3), hence few accounts, each with 11 sign-ins.
func factorAccounts(base string, n int) ([]*factorAccount, error) {
	stamp := fmt.Sprint(time.Now().UnixNano())
	var out []*factorAccount
	for i := range n {
		a := &factorAccount{email: fmt.Sprintf("factor%d-%s@loadgen.test", i, stamp)}
		tok, err := signUp(base, a.email)
		if err != nil {
			return nil, err
		}
		data, err := call(base, "POST", "/api/me/totp", tok, nil)
		if err != nil {
			return nil, err
		}
		var en struct{ Secret string }
		if err := json.Unmarshal(data, &en); err != nil {
			return nil, err
		}
		// The previous step's code confirms: the current one stays free.
		code, _ := totp.GenerateCode(en.Secret, time.Now().Add(-30*time.Second))
		body, _ := json.Marshal(map[string]string{"code": code})
		if data, err = call(base, "POST", "/api/me/totp/confirm", tok, body); err != nil {
			return nil, err
		}
		var rc struct{ RecoveryCodes []string }
		if err := json.Unmarshal(data, &rc); err != nil {
			return nil, err
		}
		a.secret, a.recovery = en.Secret, rc.RecoveryCodes
		out = append(out, a)
	}
	return out, nil
}

// factorPool hands out the next sign-in: an account and its code.
type factorPool struct {
	mu       sync.Mutex
	accounts []*factorAccount
	next     int
}

func (p *factorPool) take() (email, code string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for range len(p.accounts) {
		a := p.accounts[p.next%len(p.accounts)]
		p.next++
		if !a.usedTOTP {
			a.usedTOTP = true
			code, _ := totp.GenerateCode(a.secret, time.Now())
			return a.email, code, true
		}
		if len(a.recovery) > 0 {
			code, a.recovery = a.recovery[0], a.recovery[1:]
			return a.email, code, true
		}
	}
	return "", "", false
}

// signInTwoSteps is one sign-in with its second factor, over base.
func signInTwoSteps(base, email, code string) error {
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	data, err := call(base, "POST", "/api/auth/signin", "", body)
	if err != nil {
		return err
	}
	var ch struct{ SecondFactor struct{ Token string } }
	if err := json.Unmarshal(data, &ch); err != nil || ch.SecondFactor.Token == "" {
		return fmt.Errorf("sign-in reply without a challenge: %s", data)
	}
	body, _ = json.Marshal(map[string]string{"token": ch.SecondFactor.Token, "code": code})
	_, err = call(base, "POST", "/api/auth/second-factor", "", body)
	return err
}

// twoStepLoop runs rate two-step sign-ins per second for d, on at most conns
// at once; latency counts from the scheduled time to the second reply.
func twoStepLoop(base string, pool *factorPool, conns int, rate float64, d time.Duration) result {
	var col collector
	var wg sync.WaitGroup
	jobs := make(chan time.Time, conns*4)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{}
			for at := range jobs {
				if wait := time.Until(at); wait > 0 {
					time.Sleep(wait)
				}
				email, code, ok := pool.take()
				if !ok {
					w.errs++
					w.firstErr = "no sign-in left: more accounts needed"
					continue
				}
				err := signInTwoSteps(base, email, code)
				w.lat = append(w.lat, time.Since(at))
				if err != nil {
					w.errs++
					if w.firstErr == "" {
						w.firstErr = err.Error()
					}
				}
			}
			col.add(w)
		}()
	}
	start := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for at := start; at.Before(start.Add(d)); at = at.Add(interval) {
		jobs <- at
	}
	close(jobs)
	wg.Wait()
	return col.result(time.Since(start))
}
