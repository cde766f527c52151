package web_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sendlater/sendlater/core"
	"github.com/sendlater/sendlater/web"
)

// plansUI is a build whose pricing page was prerendered once per set of
// plans a server may sell, as scripts/prerender.mjs writes it.
func plansUI(t *testing.T) fstest.MapFS {
	t.Helper()
	variants := map[string][]core.PlanID{"pricing.html": nil, "pricing-pro.html": {core.PlanPro}, "pricing-pro-business.html": {core.PlanPro, core.PlanBusiness}}
	var list []map[string]any
	fsys := fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><html><head></head><body><div id="root"></div></body></html>`)}}
	for _, file := range []string{"pricing.html", "pricing-pro.html", "pricing-pro-business.html"} {
		var plans []web.PlanJSON
		for _, p := range core.Plans() {
			sold := false
			for _, id := range variants[file] {
				sold = sold || id == p.ID
			}
			plans = append(plans, web.PlanJSON{ID: p.ID, Name: p.Name, Price: p.Price, Perks: p.Perks, Purchasable: sold})
		}
		fsys["prerender/"+file] = &fstest.MapFile{Data: []byte(`<!doctype html><html><head></head><body><div id="root" data-prerendered="static"><p>` + file + `</p></div></body></html>`)}
		list = append(list, map[string]any{"path": "/pricing", "file": file, "site": []string{}, "plans": plans})
	}
	data, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	fsys["prerender/pages.json"] = &fstest.MapFile{Data: data}
	return fsys
}

// TestPrerenderedPricingShowsThisServersPlans: the pricing page is sent as
// prerendered with exactly the plans GET /api/plans answers (which paid
// plan checkout sells), and empty, for the app to ask, where the build
// rendered none with them.
func TestPrerenderedPricingShowsThisServersPlans(t *testing.T) {
	for _, c := range []struct {
		name   string
		prices core.PriceMap // nil: payments off
		want   string
	}{
		{"payments off", nil, "<p>pricing.html</p>"},
		{"Pro sold", core.PriceMap{"price_pro": core.PlanPro}, "<p>pricing-pro.html</p>"},
		{"Pro and Business sold", core.PriceMap{"price_pro": core.PlanPro, "price_business": core.PlanBusiness}, "<p>pricing-pro-business.html</p>"},
		{"Business alone: not rendered", core.PriceMap{"price_business": core.PlanBusiness}, `<div id="root"></div>`},
	} {
		s := &web.Server{UI: plansUI(t)}
		if c.prices != nil {
			s.Payments = &core.BillingService{Prices: c.prices}
		}
		if body := serve(s.Handler(), "/pricing").Body.String(); !strings.Contains(body, c.want) {
			t.Errorf("%s: /pricing has no %s:\n%s", c.name, c.want, body)
		}
	}
}

// TestPrerenderPlansAreTheServersPlans: the plans the build prerenders the
// pricing page with (web/ui/scripts/plans.json) are those a server without
// payments sells; were they to drift, every server would send /pricing
// empty and its visitors would wait for the app.
func TestPrerenderPlansAreTheServersPlans(t *testing.T) {
	data, err := os.ReadFile("ui/scripts/plans.json")
	if err != nil {
		t.Fatal(err)
	}
	var fixture []web.PlanJSON
	if err := json.Unmarshal(data, &fixture); err != nil {
		t.Fatal(err)
	}
	var want []web.PlanJSON
	for _, p := range (core.PaymentsOff{}).Plans() {
		want = append(want, web.PlanJSON{ID: p.ID, Name: p.Name, Price: p.Price, Perks: p.Perks, Purchasable: p.Purchasable})
	}
	if !reflect.DeepEqual(fixture, want) {
		good, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("web/ui/scripts/plans.json differs from core.Plans(); it should read:\n%s", good)
	}
}
