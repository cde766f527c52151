package main_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sendlater/sendlater/billing/stripemock"
	"github.com/sendlater/sendlater/oauth/oauthtest"
)

const testWebhookSecret = "whsec_test_sendlater"

// integrations is serve's configuration of Stripe against the stripe-mock
// peer and of Google and GitHub against the OAuth peer, on an address
// chosen first: the providers send the browser back to the base URL.
type integrations struct {
	stripe *stripemock.Peer
	oauth  *oauthtest.Provider
	addr   string
	fixed  []string // serve's environment but the base URL
}

func newIntegrations(t *testing.T) *integrations {
	t.Helper()
	in := &integrations{stripe: stripemock.StartPeer(t), oauth: oauthtest.Start(t)}
	secrets := t.TempDir()
	whsec := filepath.Join(secrets, "webhook-secret")
	os.WriteFile(whsec, []byte(testWebhookSecret+"\n"), 0o600)
	in.fixed = []string{
		"SENDLATER_STRIPE_SECRET_KEY=sk_test_sendlater",
		"SENDLATER_STRIPE_WEBHOOK_SECRET_FILE=" + whsec,
		"SENDLATER_STRIPE_PUBLISHABLE_KEY=pk_test_sendlater",
		"SENDLATER_STRIPE_API_BASE=" + in.stripe.APIBase,
		"SENDLATER_STRIPE_PRICES_PRO=" + stripemock.FixturePrice,
	}
	for _, id := range []string{"google", "github"} {
		c := in.oauth.Config(id)
		key := "SENDLATER_AUTH_PROVIDERS_" + strings.ToUpper(id) + "_"
		secret := filepath.Join(secrets, id+"-secret")
		os.WriteFile(secret, []byte(c.ClientSecret), 0o600)
		in.fixed = append(in.fixed, key+"CLIENT_ID="+c.ClientID, key+"CLIENT_SECRET_FILE="+secret, key+"AUTH_URL="+c.AuthURL,
			key+"TOKEN_URL="+c.TokenURL, key+"API_URL="+c.APIURL, key+"ISSUER="+c.Issuer, key+"JWKS_URL="+c.JWKSURL)
	}
	in.moveTo(freeAddr(t))
	return in
}

// moveTo makes addr serve's address and base URL and the webhook's target.
func (in *integrations) moveTo(addr string) {
	in.addr = addr
	in.stripe.Webhook("http://"+addr+"/api/stripe-webhook", testWebhookSecret, false)
}

// env is serve's environment for the integrations at their address.
func (in *integrations) env() []string {
	return append([]string{"SENDLATER_BASE_URL=http://" + in.addr}, in.fixed...)
}

// freeAddr is a loopback address that was free when asked.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// start runs serve in dir with the integrations. The address was free when
// it was chosen but another process may take it before serve binds it, so a
// start that finds it taken moves the integrations to a new free address and
// tries again.
func (in *integrations) start(t *testing.T, dir string) *server {
	t.Helper()
	for attempt := 1; ; attempt++ {
		cmd := exec.Command(binary, "serve", "--addr", in.addr)
		cmd.Dir = dir
		cmd.Env = append(cleanEnv(), in.env()...)
		s, err := launchServer(cmd)
		if err == nil {
			t.Cleanup(func() { s.stop(t) })
			return s
		}
		if attempt == 5 || !strings.Contains(err.Error(), "address already in use") {
			t.Fatal(err)
		}
		in.moveTo(freeAddr(t))
	}
}

// api calls the server and decodes the envelope's data into out.
func api(t *testing.T, c *http.Client, method, url, bearer string, body, out any) int {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = strings.NewReader(string(raw))
	}
	req, _ := http.NewRequest(method, url, r)
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Data json.RawMessage
		Code string
	}
	json.NewDecoder(resp.Body).Decode(&env)
	if out != nil {
		json.Unmarshal(env.Data, out)
	}
	return resp.StatusCode
}

func TestServeSaysPaymentsAndSocialAreOff(t *testing.T) {
	srv := startServer(t, t.TempDir())
	for _, want := range []string{"payments off: set stripe.secret_key", "social sign-in off: set auth.providers."} {
		if !strings.Contains(srv.logs.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, srv.logs)
		}
	}
	var providers []any
	if api(t, http.DefaultClient, "GET", srv.url+"/api/auth/providers", "", nil, &providers); len(providers) != 0 {
		t.Fatalf("providers %v", providers)
	}
}

func TestPaymentsAndSocialThroughServe(t *testing.T) {
	dir := t.TempDir()
	in := newIntegrations(t)
	srv := in.start(t, dir)
	for _, want := range []string{"payments on (Stripe)", `social sign-in on" providers=google,github`} {
		if !strings.Contains(srv.logs.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, srv.logs)
		}
	}
	var plans []struct {
		ID          string
		Purchasable bool
	}
	api(t, http.DefaultClient, "GET", srv.url+"/api/plans", "", nil, &plans)
	if len(plans) != 3 || plans[0].Purchasable || !plans[1].Purchasable || plans[2].Purchasable {
		t.Fatalf("plans %+v", plans)
	}

	// Ann pays for Pro through the hosted checkout.
	var ann struct{ IDToken string }
	api(t, http.DefaultClient, "POST", srv.url+"/api/auth/signup", "", map[string]string{"email": "ann@example.com", "password": "plum-kettle-orbit-47"}, &ann)
	var cs struct{ URL string }
	if code := api(t, http.DefaultClient, "POST", srv.url+"/api/stripe-create-checkout-session", ann.IDToken, map[string]string{"planId": "pro"}, &cs); code != 200 {
		t.Fatalf("checkout: %d", code)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Post(cs.URL, "application/x-www-form-urlencoded", nil)
	if err != nil || resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != srv.url+"/dashboard?paid=true" {
		t.Fatalf("paying: %v %v", resp, err)
	}
	resp.Body.Close()
	var me struct {
		PlanID       string
		PlanIsActive bool
	}
	api(t, http.DefaultClient, "GET", srv.url+"/api/me", ann.IDToken, nil, &me)
	if me.PlanID != "pro" || !me.PlanIsActive {
		t.Fatalf("after paying: %+v", me)
	}

	// The operator sees the customer and re-reads Stripe.
	cli := func(args ...string) result {
		t.Helper()
		r := run(t, dir, in.env(), args...)
		if r.code != 0 {
			t.Fatalf("sendlater %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		return r
	}
	r := cli("users", "show", "ann@example.com")
	for _, want := range []string{"Plan:             pro", "Stripe customer:  cus_", "Stripe price:     " + stripemock.FixturePrice, "Subscription:     active"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("users show lacks %q:\n%s", want, r.stdout)
		}
	}
	in.stripe.Set("past_due", stripemock.FixturePrice)
	r = cli("users", "sync-billing", "--verbose")
	if !strings.Contains(r.stdout, "pro (active)") || !strings.Contains(r.stdout, "pro (past_due, inactive)") ||
		!strings.Contains(r.stdout, "changed") || !strings.Contains(r.stderr, "1 users read from Stripe, 1 changed") {
		t.Fatalf("sync-billing:\n%s%s", r.stdout, r.stderr)
	}
	r = cli("users", "sync-billing", "ann@example.com", "--json")
	var changes []struct {
		Email, Status string
		Changed       bool
	}
	if json.Unmarshal([]byte(r.stdout), &changes) != nil || len(changes) != 1 || changes[0].Changed || changes[0].Status != "past_due" {
		t.Fatalf("sync-billing --json: %s", r.stdout)
	}
	api(t, http.DefaultClient, "POST", srv.url+"/api/auth/signup", "", map[string]string{"email": "bob@example.com", "password": "plum-kettle-orbit-47"}, nil)
	if r = run(t, dir, in.env(), "users", "sync-billing", "bob@example.com"); r.code == 0 || !strings.Contains(r.stderr, "has no Stripe customer") {
		t.Fatalf("sync-billing of a user without customer: %+v", r)
	}

	// Ada signs up with Google in a popup, through the redirect URL of the
	// base URL.
	in.oauth.Next(oauthtest.NewPerson("1001", "ada@example.com", true))
	jar, _ := cookiejar.New(nil)
	popup := &http.Client{Jar: jar}
	resp, err = popup.Get(srv.url + "/api/auth/oauth/google/start")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "You are signed in with Google.") {
		t.Fatalf("the popup: %d\n%s", resp.StatusCode, page)
	}
	var tok struct{ User struct{ Email string } }
	if api(t, popup, "POST", srv.url+"/api/auth/token", "", nil, &tok); tok.User.Email != "ada@example.com" {
		t.Fatalf("after the popup: %+v", tok)
	}
}

func TestIntegrationConfigIsValidated(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, []string{
		"SENDLATER_STRIPE_SECRET_KEY=sk_test_hidden", "SENDLATER_STRIPE_WEBHOOK_SECRET=whsec_hidden",
		"SENDLATER_STRIPE_PRICES_PRO=price_pro", "SENDLATER_AUTH_PROVIDERS_GITHUB_CLIENT_ID=gh-client",
		"SENDLATER_AUTH_PROVIDERS_GITHUB_CLIENT_SECRET=gh-hidden",
	}, "config")
	for _, want := range []string{"stripe.secret_key = ********", "stripe.webhook_secret = ********", "stripe.prices.pro = price_pro",
		"auth.providers.github.client_id = gh-client", "auth.providers.github.client_secret = ********", "auth.providers.google.client_id = \n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("config lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 0 || strings.Contains(r.stdout, "hidden") {
		t.Fatalf("config: %+v", r)
	}

	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"SENDLATER_STRIPE_SECRET_KEY=sk_test_x", "SENDLATER_STRIPE_PRICES_PRO=price_pro"}, "stripe.webhook_secret must be the webhook endpoint's signing secret"},
		{[]string{"SENDLATER_STRIPE_SECRET_KEY=pk_test_x", "SENDLATER_STRIPE_WEBHOOK_SECRET=whsec_x"}, "stripe.secret_key must be a secret or restricted key"},
		{[]string{"SENDLATER_STRIPE_SECRET_KEY=sk_test_x", "SENDLATER_STRIPE_WEBHOOK_SECRET=whsec_x"}, "stripe.prices.pro or stripe.prices.business must be set"},
		{[]string{"SENDLATER_STRIPE_WEBHOOK_SECRET=whsec_x"}, "need stripe.secret_key"},
		{[]string{"SENDLATER_STRIPE_SECRET_KEY=sk_live_x", "SENDLATER_STRIPE_WEBHOOK_SECRET=whsec_x", "SENDLATER_STRIPE_PRICES_PRO=price_pro", "SENDLATER_STRIPE_PUBLISHABLE_KEY=pk_test_x"}, "stripe.publishable_key must be a publishable key, pk_live_"},
		{[]string{"SENDLATER_STRIPE_PRICES_PRO=pro"}, "stripe.prices.pro must be a Stripe price id"},
		{[]string{"SENDLATER_STRIPE_PRICES_PRO=price_x", "SENDLATER_STRIPE_PRICES_BUSINESS=price_x"}, "stripe.prices.business must differ"},
		{[]string{"SENDLATER_STRIPE_API_BASE=localhost:12111"}, "stripe.api_base must be an absolute http(s) URL"},
		{[]string{"SENDLATER_STRIPE_SECRET_KEY_FILE=/nonexistent/file"}, "stripe.secret_key_file"},
		{[]string{"SENDLATER_AUTH_PROVIDERS_TWITTER_CLIENT_ID=x-client"}, "auth.providers.twitter.client_id and auth.providers.twitter.client_secret must be set together"},
		{[]string{"SENDLATER_AUTH_PROVIDERS_GOOGLE_ISSUER=accounts.google.com"}, "auth.providers.google.issuer must be an absolute http(s) URL"},
		{[]string{"SENDLATER_AUTH_PROVIDERS_FACEBOOK_CLIENT_SECRET_FILE=/nonexistent/file"}, "auth.providers.facebook.client_secret_file"},
	} {
		r := run(t, dir, tc.env, "config")
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to say %q", tc.env, r.code, r.stderr, tc.want)
		}
	}
}

// TestPaymentsAndSocialInABrowser drives headless Chromium against the real
// binary configured with both peers (web/ui/e2e/integrations.mjs holds the
// steps): a free user pays for Pro through the hosted checkout, whose
// webhook the script releases once back on the dashboard, and sees the paid
// banner and Add Message enabled without a reload, then adds a second
// message; a visitor signs in with Google in the popup, lands on the
// dashboard, and finds Google marked "Last used" on the next sign-in.
func TestPaymentsAndSocialInABrowser(t *testing.T) {
	b := needBrowser(t)
	in := newIntegrations(t)
	srv := in.start(t, t.TempDir())
	in.stripe.Webhook(srv.url+"/api/stripe-webhook", testWebhookSecret, true)
	const googleEmail = "ada.social@example.com"
	in.oauth.Next(oauthtest.NewPerson("1001", googleEmail, true))

	b.run(t, srv, 4*time.Minute, "integrations.mjs", googleEmail)
}
