package mailer

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/emersion/go-msgauth/dkim"
)

// DKIM key types of GenerateDKIMKey.
const (
	DKIMKeyRSA     = "rsa"     // RSA 2048: every receiver verifies it
	DKIMKeyEd25519 = "ed25519" // RFC 8463: short, but not every receiver verifies it yet
)

// dkimHeaders are the header fields each signature covers (RFC 6376
// section 5.4.1), List-Unsubscribe and List-Unsubscribe-Post included, as
// one-click refusal requires (RFC 8058 section 4). Each is signed once
// more than it appears, so that none can be added after signing.
var dkimHeaders = []string{
	"From", "From", "Reply-To", "Reply-To", "Subject", "Subject", "Date", "Date", "To", "To", "Cc",
	"Message-ID", "Message-ID", "In-Reply-To", "References", "MIME-Version", "Content-Type",
	"Content-Transfer-Encoding", "List-Unsubscribe", "List-Unsubscribe", "List-Unsubscribe-Post", "List-Unsubscribe-Post",
}

// DKIM signs every email a transport sends, as Domain with the key
// published at Selector._domainkey.Domain.
type DKIM struct {
	Domain   string
	Selector string
	Key      crypto.Signer
}

// sign writes msg to w with a DKIM-Signature header field in front.
func (d *DKIM) sign(w io.Writer, msg io.WriterTo) error {
	var raw bytes.Buffer
	if _, err := msg.WriteTo(&raw); err != nil {
		return err
	}
	return dkim.Sign(w, &raw, &dkim.SignOptions{
		Domain: d.Domain, Selector: d.Selector, Signer: d.Key, Hash: crypto.SHA256,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed, BodyCanonicalization: dkim.CanonicalizationRelaxed,
		HeaderKeys: dkimHeaders,
	})
}

// signedMsg is an email signed already, written as it is.
type signedMsg []byte

func (m signedMsg) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(m)
	return int64(n), err
}

// LoadDKIMKey reads the private key in file: PEM, PKCS #8 (what
// `sendlater dkim keygen` writes) or PKCS #1 for RSA, an RSA key of at
// least 1024 bits or an Ed25519 key. A file that others than its owner may
// read or write is refused (chmod 600 it), as is one that holds no such key.
func LoadDKIMKey(file string) (crypto.Signer, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%s is mode %04o: a private key must be readable by its owner only (chmod 600 %s)", file, perm, file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, fmt.Errorf("%s holds no PEM private key", file)
	}
	var key any
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("%s holds a %q, not a private key", file, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if k.N.BitLen() < 1024 {
			return nil, fmt.Errorf("%s: an RSA key of %d bits is too short for DKIM (RFC 8301: 1024 at least, 2048 advised)", file, k.N.BitLen())
		}
		return k, nil
	case ed25519.PrivateKey:
		return k, nil
	}
	return nil, fmt.Errorf("%s: DKIM signs with RSA or Ed25519 keys only", file)
}

// GenerateDKIMKey makes a new key of kind (DKIMKeyRSA, 2048 bits, or
// DKIMKeyEd25519) and returns it with its PEM (PKCS #8) encoding.
func GenerateDKIMKey(kind string) (crypto.Signer, []byte, error) {
	var key crypto.Signer
	switch kind {
	case DKIMKeyRSA:
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, nil, err
		}
		key = k
	case DKIMKeyEd25519:
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		key = k
	default:
		return nil, nil, fmt.Errorf("a DKIM key is %s or %s, not %q", DKIMKeyRSA, DKIMKeyEd25519, kind)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// DKIMRecord is the TXT record's value that publishes key's public half
// (RFC 6376 section 3.6.1; RFC 8463 for Ed25519).
func DKIMRecord(key crypto.Signer) (string, error) {
	switch pub := key.Public().(type) {
	case *rsa.PublicKey:
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			return "", err
		}
		return "v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(der), nil
	case ed25519.PublicKey:
		return "v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(pub), nil
	}
	return "", errors.New("DKIM keys are RSA or Ed25519")
}
