package web

import (
	"context"
	"net/http"
	"time"

	"github.com/sendlater/sendlater/core"
)

// DeviceGrant is what DeviceSignIn gets once its owner approved: a
// personal access token of theirs, its secret, and their email.
type DeviceGrant struct {
	Token  core.AccessTokenInfo
	Secret string
	Email  string
}

// DeviceSignIn signs a terminal in by the device flow (docs/identity.md,
// "Device sign-in"): it asks the API at baseURL for codes (POST
// /api/device/code) under clientName, the name of the token to be, with
// userAgent; hands them to show, which tells the user the code and the
// URL; then polls (POST /api/device/token) every interval, waiting 5
// seconds more each time the server says slow_down, until the user
// approves in the web app (the token), denies (access_denied) or the codes
// expire (expired_token).
func DeviceSignIn(ctx context.Context, baseURL, clientName, userAgent string, show func(DeviceAuthorizationJSON)) (*DeviceGrant, error) {
	c := NewAPIClient(baseURL, "", 0)
	c.t.head = http.Header{"User-Agent": {userAgent}}
	var da DeviceAuthorizationJSON
	if err := c.t.do(ctx, "POST", "/api/device/code", DeviceCodeRequestJSON{ClientName: clientName}, &da); err != nil {
		return nil, err
	}
	show(da)
	interval := time.Duration(max(da.Interval, 1)) * time.Second
	for {
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		var g DeviceGrantJSON
		err := c.t.do(ctx, "POST", "/api/device/token", DeviceTokenRequestJSON{DeviceCode: da.DeviceCode}, &g)
		switch core.ErrorCode(err) {
		case "":
			return &DeviceGrant{Token: g.AccessTokenJSON.Core(), Secret: g.Token, Email: g.Email}, nil
		case core.EAuthorizationPending:
		case core.ESlowDown:
			interval += core.DeviceSlowDownStep
		default:
			return nil, err
		}
	}
}
