package web

import (
	"embed"
	"html/template"
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// The popup page that ends a social sign-in. It carries the result as a JSON
// data block that its script (popup/popup.js, served by us: the CSP allows
// no inline script) hands to the page that opened the popup.

//go:embed popup/popup.js
var popupFS embed.FS

// popupScriptPath is where the popup page's script is served.
const popupScriptPath = "/oauth-popup.js"

// PopupResultJSON is what the popup hands to its opener: the envelope's
// status, code and message, with the provider and what the sign-in was for
// (intent: "" to sign in, "link" or "reauth"). For an account with a
// second factor, status is "second-factor" and secondFactor the challenge
// the opener sends back with a code (POST /api/auth/second-factor).
type PopupResultJSON struct {
	Provider     string                     `json:"provider"`
	Intent       string                     `json:"intent"`
	Status       string                     `json:"status"`
	Code         string                     `json:"code,omitempty"`
	Message      string                     `json:"message"`
	SecondFactor *SecondFactorChallengeJSON `json:"secondFactor,omitempty"`
}

var popupPage = template.Must(template.New("popup").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Title}} · {{.App}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style>
<script id="oauth-result" type="application/json">{{.Result}}</script>
<script src="{{.Script}}" defer></script>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<p>{{.Result.Message}}</p>
<p><a href="{{.Next}}">{{.NextLabel}}</a></p>
</main>
</body>
</html>
`))

// writePopup writes the popup page of a provider sign-in's outcome.
func (s *Server) writePopup(w http.ResponseWriter, r *http.Request, provider, intent string, sf *core.SecondFactorChallenge, err error) {
	name := core.ProviderName(provider)
	res := PopupResultJSON{Provider: provider, Intent: intent, Status: "success"}
	page := struct {
		App, Title, Next, NextLabel, Script string
		Result                              PopupResultJSON
	}{App: s.AppName, Script: popupScriptPath, Next: "/dashboard", NextLabel: "Continue to your dashboard"}
	status := http.StatusOK
	switch {
	case err != nil:
		code := core.ErrorCode(err)
		if code == core.EInternal {
			logger(r).Error("internal error", "err", err)
		}
		res.Status, res.Code, res.Message = "error", code, core.ErrorMessage(err)
		page.Title, page.Next, page.NextLabel = "Sign-in with "+name+" did not work", "/auth/signin", "Back to sign in"
		status = HTTPStatus(code)
	case sf != nil:
		res.Status = "second-factor"
		res.SecondFactor = &SecondFactorChallengeJSON{Token: sf.Token, ExpiresAt: millis(sf.ExpiresAt), Methods: sf.Methods}
		res.Message = "Enter the code from your authenticator app in the " + s.AppName + " window to finish signing in."
		page.Title, page.Next, page.NextLabel = "One more step", "/auth/signin", "Back to sign in"
	case intent == core.IntentLink:
		res.Message = "Your " + name + " account is linked: you can sign in with it from now on."
		page.Title = name + " account linked"
	case intent == core.IntentReauth:
		res.Message = "You signed in again with " + name + "."
		page.Title = "Signed in again"
	default:
		res.Message = "You are signed in with " + name + "."
		page.Title = "Signed in with " + name
	}
	if intent != core.IntentSignIn {
		page.Next, page.NextLabel = "/settings/general", "Back to your settings"
	}
	page.Result = res
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := popupPage.Execute(w, page); err != nil {
		logger(r).Error("popup page", "err", err)
	}
}

func handlePopupScript(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.ServeFileFS(w, r, popupFS, "popup/popup.js")
}
