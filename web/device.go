package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

// The device flow (docs/identity.md, "Device sign-in"): a terminal asks for
// codes and polls; its owner looks the short code up, and approves or
// denies it, from a session of the web app.

// DeviceCodeRequestJSON starts the flow: the name the terminal's token
// will have.
type DeviceCodeRequestJSON struct {
	ClientName string `json:"clientName"`
}

// DeviceAuthorizationJSON is RFC 8628's device authorization response in
// the API's spelling: deviceCode (device_code), userCode, verificationUri,
// verificationUriComplete, expiresIn and interval (seconds).
type DeviceAuthorizationJSON struct {
	DeviceCode              string `json:"deviceCode"`
	UserCode                string `json:"userCode"`
	VerificationURI         string `json:"verificationUri"`
	VerificationURIComplete string `json:"verificationUriComplete"`
	ExpiresIn               int    `json:"expiresIn"`
	Interval                int    `json:"interval"`
}

// DeviceTokenRequestJSON is a poll.
type DeviceTokenRequestJSON struct {
	DeviceCode string `json:"deviceCode"`
}

// DeviceGrantJSON is the approved poll's reply: a new personal access
// token with its secret, and whose it is.
type DeviceGrantJSON struct {
	CreatedTokenJSON
	Email string `json:"email"`
}

// UserCodeJSON names a request by the code its owner typed.
type UserCodeJSON struct {
	UserCode string `json:"userCode"`
}

// DeviceRequestJSON is a waiting request as the approval page shows it.
type DeviceRequestJSON struct {
	ClientName string   `json:"clientName"`
	Device     string   `json:"device"`
	Network    string   `json:"network,omitempty"`
	CreatedAt  int64    `json:"createdAt"`
	ExpiresAt  int64    `json:"expiresAt"`
	Scopes     []string `json:"scopes"`
}

func newDeviceRequestJSON(r *core.DeviceRequest) DeviceRequestJSON {
	return DeviceRequestJSON{ClientName: r.ClientName, Device: r.Device, Network: r.Network,
		CreatedAt: millis(r.CreatedAt), ExpiresAt: millis(r.ExpiresAt), Scopes: r.Scopes}
}

func (s *Server) deviceFlow() core.DeviceFlow {
	if s.DeviceFlow != nil {
		return s.DeviceFlow
	}
	d, _ := s.Identities.(core.DeviceFlow)
	return d
}

func (s *Server) deviceRoutes(mux *http.ServeMux) {
	df := s.deviceFlow()
	if df == nil {
		return
	}
	mux.HandleFunc("POST /api/device/code", func(w http.ResponseWriter, r *http.Request) {
		var req DeviceCodeRequestJSON
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		da, err := df.RequestDeviceCode(r.Context(), req.ClientName, authClient(r))
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, DeviceAuthorizationJSON{
			DeviceCode: da.DeviceCode, UserCode: da.UserCode,
			VerificationURI: da.VerificationURI, VerificationURIComplete: da.VerificationURIComplete,
			ExpiresIn: int(core.DeviceCodeTTL.Seconds()), Interval: int(da.Interval.Seconds()),
		})
	})
	mux.HandleFunc("POST /api/device/token", func(w http.ResponseWriter, r *http.Request) {
		var req DeviceTokenRequestJSON
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		g, err := df.PollDeviceCode(r.Context(), req.DeviceCode)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeData(w, http.StatusOK, DeviceGrantJSON{
			CreatedTokenJSON: CreatedTokenJSON{AccessTokenJSON: NewAccessTokenJSON(g.Token), Token: g.Secret},
			Email:            g.Email,
		})
	})
	decided := func(do func(r *http.Request, code string) (*core.DeviceRequest, error)) http.HandlerFunc {
		return s.authed(func(w http.ResponseWriter, r *http.Request) {
			var req UserCodeJSON
			if err := decodeJSON(w, r, &req); err != nil {
				writeError(w, r, err)
				return
			}
			dr, err := do(r, req.UserCode)
			if err != nil {
				writeError(w, r, err)
				return
			}
			if dr == nil {
				writeData(w, http.StatusOK, nil)
				return
			}
			writeData(w, http.StatusOK, newDeviceRequestJSON(dr))
		})
	}
	mux.HandleFunc("POST /api/me/device", decided(func(r *http.Request, code string) (*core.DeviceRequest, error) {
		return df.LookUpDeviceCode(r.Context(), code, authClient(r))
	}))
	mux.HandleFunc("POST /api/me/device/approve", decided(func(r *http.Request, code string) (*core.DeviceRequest, error) {
		return df.ApproveDeviceCode(r.Context(), code, authClient(r))
	}))
	mux.HandleFunc("POST /api/me/device/deny", decided(func(r *http.Request, code string) (*core.DeviceRequest, error) {
		return nil, df.DenyDeviceCode(r.Context(), code, authClient(r))
	}))
}
