package wiring_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/internal/testenv"
	"github.com/sendlater/sendlater/internal/wiring"
	"github.com/sendlater/sendlater/mailer/mailertest"
)

func options(t *testing.T) wiring.Options {
	e := testenv.New(t, testenv.Config{})
	return wiring.Options{Store: e.Store, Mailer: &mailertest.Mailer{}, Emails: e.Emails, Clock: e.Clock,
		MasterKey: testenv.Key, Blobs: e.Blobs}
}

// Every service of the graph is built: one added to Graph and forgotten in
// Build fails here (SocialFlow, Billing and Bounces are the config's, nil
// when off).
func TestBuildWiresEveryService(t *testing.T) {
	g, release, err := wiring.Build(options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	v := reflect.ValueOf(g).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if name == "SocialFlow" || name == "Billing" || name == "Bounces" {
			continue
		}
		if v.Field(i).IsZero() {
			t.Errorf("Graph.%s is not wired", name)
		}
	}
	if _, off := g.Payments.(core.PaymentsOff); !off {
		t.Errorf("Payments = %T with no billing, want PaymentsOff", g.Payments)
	}
}

// The keys derive from the master key as cmd always derived them, and each
// one set in Options.Keys overrides its derived one (testenv's fixed keys).
func TestBuildKeys(t *testing.T) {
	o := options(t)
	g, _, err := wiring.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := core.DeriveKey(testenv.Key, core.PurposeIDTokens); !bytes.Equal(g.Auth.SigningKey, want) {
		t.Errorf("SigningKey = %x, want the derived %x", g.Auth.SigningKey, want)
	}
	if want := core.DeriveKey(testenv.Key, core.PurposeLimitKeys); !bytes.Equal(g.Limits.Key, want) {
		t.Errorf("LimitKey = %x, want the derived %x", g.Limits.Key, want)
	}
	o.Keys = wiring.Keys{SigningKey: testenv.SigningKey, LimitKey: testenv.LimitKey}
	if g, _, err = wiring.Build(o); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g.Auth.SigningKey, testenv.SigningKey) || !bytes.Equal(g.Limits.Key, testenv.LimitKey) {
		t.Error("Options.Keys did not override the derived keys")
	}
	o.MasterKey = nil
	if _, _, err := wiring.Build(o); err == nil {
		t.Error("Build without MasterKey and RefusalSecret succeeded")
	}
	o.Keys.RefusalSecret = testenv.RefusalSecret
	if _, _, err := wiring.Build(o); err == nil {
		t.Error("Build without MasterKey and BounceSecret succeeded")
	}
	o.Keys.BounceSecret = bytes.Repeat([]byte{7}, 32)
	if _, _, err := wiring.Build(o); err == nil {
		t.Error("Build without MasterKey and OpenKey succeeded")
	}
	o.Keys.OpenKey = bytes.Repeat([]byte{8}, 32)
	if _, _, err := wiring.Build(o); err == nil {
		t.Error("Build without MasterKey and AttachmentKey succeeded")
	}
	o.Keys.AttachmentKey = bytes.Repeat([]byte{9}, 32)
	if _, _, err := wiring.Build(o); err == nil {
		t.Error("Build without MasterKey and FileLinkKey succeeded")
	}
	o.Keys.FileLinkKey = bytes.Repeat([]byte{10}, 32)
	if _, _, err := wiring.Build(o); err != nil {
		t.Errorf("Build with every key and no master key: %v", err)
	}
	o.Store = nil
	if _, _, err := wiring.Build(o); err == nil {
		t.Error("Build without a store succeeded")
	}
}

// AppName names the site in the passkey prompt (the relying party's name)
// and in the authenticator app (the TOTP issuer); without one, both are
// core.DefaultIssuer.
func TestBuildNamesTheAppInPromptsAndApps(t *testing.T) {
	o := options(t)
	o.BaseURL = "https://vault.example"
	for _, tt := range []struct{ app, want string }{{"Acme Vault", "Acme Vault"}, {"", core.DefaultIssuer}} {
		o.AppName = tt.app
		g, release, err := wiring.Build(o)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if got := g.Auth.Issuer(); got != tt.want {
			t.Errorf("app %q: issuer %q, want %q", tt.app, got, tt.want)
		}
		options, _, err := g.Auth.Ceremonies.BeginRegistration(&core.User{ID: "u1", Email: "ann@example.com"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var begin struct {
			PublicKey struct {
				RP struct{ ID, Name string } `json:"rp"`
			} `json:"publicKey"`
		}
		if err := json.Unmarshal(options, &begin); err != nil {
			t.Fatal(err)
		}
		if rp := begin.PublicKey.RP; rp.Name != tt.want || rp.ID != "vault.example" {
			t.Errorf("app %q: relying party %+v, want %q at vault.example", tt.app, rp, tt.want)
		}
	}
}
