package core

// A delivered message's files: each recipient's email lists them with a
// download link of their own (FileLinks), and, when an operator allows it
// (attachments.inline_max) and they are small, also carries them.

import (
	"context"
	"io"
)

// DeliveryFile is one file as a delivery email lists it.
type DeliveryFile struct {
	Name       string
	Size       string // in words for people (FormatBytes)
	Executable bool
	Link       string // {base_url}/files/{token}; "" for a sealed message's
}

// EmailAttachment is a file carried by an email itself.
type EmailAttachment struct {
	Name string
	Type string // the sniffed media type
	Data []byte
}

// completeFiles are the files of as whose every byte is stored: the ones
// an email lists (an upload under way is not part of the message yet).
func completeFiles(as []*Attachment) []*Attachment {
	var out []*Attachment
	for _, a := range as {
		if a.State == AttachmentComplete {
			out = append(out, a)
		}
	}
	return out
}

// messageFiles are the complete files of m, none without a file service.
func (d *Delivery) messageFiles(ctx context.Context, m *Message) ([]*Attachment, error) {
	if d.Files == nil {
		return nil, nil
	}
	as, err := d.Files.Attachments.MessageAttachments(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	return completeFiles(as), nil
}

// fileList is how r's email lists files: r's own links, or test links
// (FileTestToken, which download only for the author) without FileLinks.
// A sealed message's files are listed by name and opened size, without
// links: their bytes open on the message's page only, with the passphrase.
func (d *Delivery) fileList(m *Message, r *Recipient, files []*Attachment) []DeliveryFile {
	if len(files) == 0 {
		return nil
	}
	out := make([]DeliveryFile, len(files))
	for i, f := range files {
		if m.IsSealed() {
			out[i] = DeliveryFile{Name: f.Name, Size: FormatBytes(ShownOpenedFileSize(f.Size))}
			continue
		}
		token := FileTestToken(f.ID)
		if d.FileLinks != nil {
			token = d.FileLinks.Token(m.ID, f.ID, r.Address)
		}
		out[i] = DeliveryFile{Name: f.Name, Size: FormatBytes(f.Size), Executable: f.Executable,
			Link: d.BaseURL + FileLinkPath + token}
	}
	return out
}

// inlineFiles are the files an email carries: all of them opened when
// their total is at most InlineMax (0: never), but executables (never
// attached) and a sealed message's (encrypted by the author's client:
// only the open page could use them).
func (d *Delivery) inlineFiles(ctx context.Context, files []*Attachment) ([]EmailAttachment, error) {
	if d.InlineMax <= 0 || len(files) == 0 || d.Files == nil {
		return nil, nil
	}
	var total int64
	for _, f := range files {
		total += f.Size
	}
	if total > d.InlineMax {
		return nil, nil
	}
	var out []EmailAttachment
	for _, f := range files {
		if f.Executable || f.ClientSealed {
			continue
		}
		r := &AttachmentReader{ctx: ctx, s: d.Files, a: f}
		data, err := io.ReadAll(io.LimitReader(r, f.Size))
		r.Close()
		if err != nil {
			return nil, err
		}
		typ := f.Type
		if typ == "" {
			typ = "application/octet-stream"
		}
		out = append(out, EmailAttachment{Name: f.Name, Type: typ, Data: data})
	}
	return out, nil
}

// emailFiles are the files every email of m lists, and those it carries.
func (d *Delivery) emailFiles(ctx context.Context, m *Message) ([]*Attachment, []EmailAttachment, error) {
	files, err := d.messageFiles(ctx, m)
	if err != nil {
		return nil, nil, err
	}
	inline, err := d.inlineFiles(ctx, files)
	if err != nil {
		// The links still list them: the email goes without.
		d.logger().Warn("the files to attach could not be read; the email links them only", "message", m.ID, "err", err)
		inline = nil
	}
	return files, inline, nil
}
