package web

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"net/http"

	"github.com/pquerna/otp"
)

// The second factor over HTTP: the sign-in step that takes a challenge and
// a code, and the owner's settings (docs/identity.md, "Second factor").

type secondFactorRequest struct {
	Token string     `json:"token"`
	Code  string     `json:"code"`
	Proof *proofJSON `json:"proof,omitempty"`
}

// handleSecondFactor ends a sign-in whose reply was a secondFactor
// challenge: with the right code, the session starts.
func (s *Server) handleSecondFactor(w http.ResponseWriter, r *http.Request) {
	var req secondFactorRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	c := authClientWithProof(r, req.Proof)
	t, err := s.Identities.CompleteSecondFactor(r.Context(), req.Token, req.Code, c)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.writeTokens(w, http.StatusOK, t)
}

// TOTPEnrolmentJSON is a pending authenticator app: the secret to type,
// the otpauth URI, and the URI's QR code as a PNG data URL, drawn here so
// the page loads no code and makes no request for it.
type TOTPEnrolmentJSON struct {
	Secret string `json:"secret"`
	URI    string `json:"uri"`
	QR     string `json:"qr"`
}

// qrSize is the QR code's width and height in pixels.
const qrSize = 200

func (s *Server) handleBeginTOTP(w http.ResponseWriter, r *http.Request) {
	en, err := s.Identities.BeginTOTP(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	qr, err := qrDataURL(en.URI)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, TOTPEnrolmentJSON{Secret: en.Secret, URI: en.URI, QR: qr})
}

// qrDataURL is the QR code of an otpauth URI as a PNG data URL.
func qrDataURL(uri string) (string, error) {
	key, err := otp.NewKeyFromURL(uri)
	if err != nil {
		return "", err
	}
	img, err := key.Image(qrSize, qrSize)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

type codeRequest struct {
	Code string `json:"code"`
}

// RecoveryCodesJSON are new recovery codes, shown this once.
type RecoveryCodesJSON struct {
	RecoveryCodes []string `json:"recoveryCodes"`
}

func (s *Server) handleConfirmTOTP(w http.ResponseWriter, r *http.Request) {
	var req codeRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	rc, err := s.Identities.ConfirmTOTP(r.Context(), req.Code)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, RecoveryCodesJSON{rc.Codes})
}

func (s *Server) handleDisableTOTP(w http.ResponseWriter, r *http.Request) {
	if err := s.Identities.DisableTOTP(r.Context()); err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, nil)
}

func (s *Server) handleRegenerateRecoveryCodes(w http.ResponseWriter, r *http.Request) {
	rc, err := s.Identities.RegenerateRecoveryCodes(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, RecoveryCodesJSON{rc.Codes})
}
