package web

import (
	"context"
	"net/http"
	"net/url"

	"github.com/sendlater/sendlater/core"
)

// The admin socket's suppression list routes (issue 31): `sendlater
// suppressions list|remove`, each audited under the peer's OS user.

func (s *AdminServer) suppressionRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /admin/suppressions", s.handleListSuppressions)
	mux.HandleFunc("DELETE /admin/suppressions/{address}", s.handleRemoveSuppression)
	mux.HandleFunc("POST /admin/attachments/gc", s.handleCollectFiles)
}

// GCReportJSON is what `sendlater attachments gc` did.
type GCReportJSON struct {
	StaleUploads int   `json:"staleUploads"`
	Orphans      int   `json:"orphans"`
	OrphanBytes  int64 `json:"orphanBytes"`
	Kept         int   `json:"kept"`
}

func (s *AdminServer) handleCollectFiles(w http.ResponseWriter, r *http.Request) {
	rep, err := s.Admin.CollectFiles(r.Context(), r.URL.Query().Get("force") == "true")
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, GCReportJSON(rep))
}

// CollectFiles runs attachments gc in the server.
func (c *AdminClient) CollectFiles(ctx context.Context, force bool) (core.GCReport, error) {
	var out GCReportJSON
	path := "/admin/attachments/gc"
	if force {
		path += "?force=true"
	}
	if err := c.t.do(ctx, "POST", path, nil, &out); err != nil {
		return core.GCReport{}, err
	}
	return core.GCReport(out), nil
}

// SuppressionJSON is an address on the suppression list.
type SuppressionJSON struct {
	Address string `json:"address"`
	At      int64  `json:"at"`
	Reason  string `json:"reason"`
}

// NewSuppressionJSON is sp on the wire.
func NewSuppressionJSON(sp *core.Suppression) SuppressionJSON {
	return SuppressionJSON{Address: sp.Address, At: millis(sp.At), Reason: sp.Reason}
}

// Core is the suppression j describes.
func (j SuppressionJSON) Core() *core.Suppression {
	return &core.Suppression{Address: j.Address, At: fromMillis(j.At), Reason: j.Reason}
}

func (s *AdminServer) handleListSuppressions(w http.ResponseWriter, r *http.Request) {
	l, err := s.Admin.ListSuppressions(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, each(l, NewSuppressionJSON))
}

func (s *AdminServer) handleRemoveSuppression(w http.ResponseWriter, r *http.Request) {
	if err := s.Admin.RemoveSuppression(r.Context(), r.PathValue("address")); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (c *AdminClient) ListSuppressions(ctx context.Context) ([]*core.Suppression, error) {
	var out []SuppressionJSON
	if err := c.t.do(ctx, "GET", "/admin/suppressions", nil, &out); err != nil {
		return nil, err
	}
	return each(out, SuppressionJSON.Core), nil
}

func (c *AdminClient) RemoveSuppression(ctx context.Context, email string) error {
	return c.t.do(ctx, "DELETE", "/admin/suppressions/"+url.PathEscape(email), nil, nil)
}
