package smtptest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"regexp"
	"strings"
)

// Parsed is a message taken apart: its header, decoded subject and the
// decoded text/plain and text/html bodies.
type Parsed struct {
	Header  mail.Header
	Subject string
	Text    string
	HTML    string
	// Attachments are the parts sent as attachments (Content-Disposition:
	// attachment), decoded; not part of Text or HTML.
	Attachments []Attachment
}

// Attachment is one attached file of a message.
type Attachment struct {
	Name string
	Type string // the media type, without parameters
	Data []byte
}

// Parse reads a received message.
func (m Message) Parse() (*Parsed, error) { return Parse(m.Data) }

// Parse takes apart a raw RFC 5322 message, such as an outbox .eml file:
// multipart bodies are walked, quoted-printable and base64 decoded.
func Parse(raw []byte) (*Parsed, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("smtptest: parse message: %w", err)
	}
	p := &Parsed{Header: msg.Header}
	if p.Subject, err = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); err != nil {
		return nil, fmt.Errorf("smtptest: decode subject: %w", err)
	}
	body, err := decode(msg.Body, msg.Header.Get("Content-Transfer-Encoding"))
	if err != nil {
		return nil, err
	}
	if err := p.walk(msg.Header.Get("Content-Type"), body); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Parsed) walk(contentType string, body io.Reader) error {
	if contentType == "" {
		contentType = "text/plain"
	}
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return fmt.Errorf("smtptest: content type %q: %w", contentType, err)
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			part, err := r.NextPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("smtptest: multipart: %w", err)
			}
			// multipart.Reader already undid quoted-printable (and dropped
			// the header); base64 is left to us.
			partBody, err := decode(part, part.Header.Get("Content-Transfer-Encoding"))
			if err != nil {
				return err
			}
			if d, dp, err := mime.ParseMediaType(part.Header.Get("Content-Disposition")); err == nil && d == "attachment" {
				b, err := io.ReadAll(partBody)
				if err != nil {
					return fmt.Errorf("smtptest: read an attachment: %w", err)
				}
				typ, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
				p.Attachments = append(p.Attachments, Attachment{Name: dp["filename"], Type: typ, Data: b})
				continue
			}
			if err := p.walk(part.Header.Get("Content-Type"), partBody); err != nil {
				return err
			}
		}
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return fmt.Errorf("smtptest: read %s: %w", mediaType, err)
	}
	switch mediaType {
	case "text/plain":
		p.Text += string(b)
	case "text/html":
		p.HTML += string(b)
	}
	return nil
}

func decode(r io.Reader, transferEncoding string) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(transferEncoding)) {
	case "quoted-printable":
		return quotedprintable.NewReader(r), nil
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r), nil
	case "", "7bit", "8bit", "binary":
		return r, nil
	}
	return nil, fmt.Errorf("smtptest: unknown transfer encoding %q", transferEncoding)
}

var (
	hrefPattern = regexp.MustCompile(`href="([^"]*)"`)
	urlPattern  = regexp.MustCompile(`https?://[^\s<>"]+`)
)

// Links returns the http(s) links of the message, from the HTML hrefs and
// the plain text, each once, in order of appearance (HTML first).
func (p *Parsed) Links() []string {
	var links []string
	seen := map[string]bool{}
	add := func(l string) {
		if (strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")) && !seen[l] {
			seen[l] = true
			links = append(links, l)
		}
	}
	for _, m := range hrefPattern.FindAllStringSubmatch(p.HTML, -1) {
		add(html.UnescapeString(m[1]))
	}
	for _, l := range urlPattern.FindAllString(p.Text, -1) {
		add(l)
	}
	return links
}

// Link returns the first link that starts with prefix, or "".
func (p *Parsed) Link(prefix string) string {
	for _, l := range p.Links() {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
