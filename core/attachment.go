package core

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// An attachment is a file that goes with a message (issue 33,
// docs/attachments.md). Its record is kept in the store with the message
// (and goes with it); its bytes, sealed (SealAttachment), are blobs of a
// BlobStore, one blob a part of the upload protocol: the part's index and a
// random token of the attempt that stored it name the blob
// (Attachment.PartKey), and the record lists the token of every part it
// acknowledged, in order. A blob no record lists is an orphan that
// `sendlater attachments gc` removes.

// AttachmentState is where an upload stands.
type AttachmentState string

const (
	// AttachmentUploading is an upload whose parts have not all arrived.
	AttachmentUploading AttachmentState = "uploading"
	// AttachmentComplete is a file whose every byte is stored.
	AttachmentComplete AttachmentState = "complete"
)

// MaxAttachments is how many files one message may have.
const MaxAttachments = 10

// MaxAttachmentNameLen is the longest cleaned name, in bytes.
const MaxAttachmentNameLen = 200

// Attachment is one file of a message.
type Attachment struct {
	ID        string
	MessageID string
	Owner     string // the message's author
	// Name is the file's name as the author gave it, cleaned
	// (CleanAttachmentName): no folder, no control character.
	Name string
	// Type is the media type sniffed from the first 512 bytes
	// (net/http.DetectContentType), never the client's; "" until the
	// first part arrives. Executables are application/octet-stream.
	Type string
	// Size is the file's size in bytes, declared when the upload was made
	// and reserved against the plan's limits then.
	Size int64
	// Executable marks a file that a computer would run (a program, a
	// script): allowed, but shown marked and never served as anything
	// other than application/octet-stream.
	Executable bool
	// ClientSealed is a file of a sealed message (docs/sealed.md): its
	// bytes arrived encrypted by the author's client, the server never
	// had their plaintext (and sniffs nothing of them: Type is
	// application/octet-stream). The server seals them once more at rest
	// as every file.
	ClientSealed bool
	// PartSize is the upload's part size: every part but the last holds
	// that many bytes. A multiple of AttachmentChunkSize.
	PartSize int64
	// Parts are the tokens of the parts stored so far, in order.
	Parts     []string
	State     AttachmentState
	CreatedAt time.Time
	// CompletedAt is when the last part arrived; zero while uploading.
	CompletedAt time.Time
	// Downloads are the recipients' downloads from their links, by
	// recipient: filled by AttachmentService.List for the author, never
	// by the stores' reads.
	Downloads []AttachmentDownload
}

// PartCount is how many parts the whole file has (an empty file one).
func (a *Attachment) PartCount() int {
	if a.Size == 0 || a.PartSize <= 0 {
		return 1
	}
	return int((a.Size + a.PartSize - 1) / a.PartSize)
}

// PartLen is the number of bytes of part i.
func (a *Attachment) PartLen(i int) int64 {
	if i == a.PartCount()-1 {
		return a.Size - int64(i)*a.PartSize
	}
	return a.PartSize
}

// Offset is how many of the file's bytes are stored: where the next part
// starts.
func (a *Attachment) Offset() int64 {
	return min(int64(len(a.Parts))*a.PartSize, a.Size)
}

// AttachmentBlobPrefix starts the key of every attachment blob.
const AttachmentBlobPrefix = "att/"

// PartKey is the blob key of part i stored by the attempt token.
func (a *Attachment) PartKey(i int, token string) string {
	return fmt.Sprintf("%s%s/%05d.%s", AttachmentBlobPrefix, a.ID, i, token)
}

// PartKeys are the blob keys of every stored part.
func (a *Attachment) PartKeys() []string {
	keys := make([]string, len(a.Parts))
	for i, t := range a.Parts {
		keys[i] = a.PartKey(i, t)
	}
	return keys
}

// partSealID is the file id each part is sealed under (SealAttachment):
// the file, the part's index and the number of parts, so that a part moved
// to another place or file, or a file cut short by whole parts, fails to
// open.
func (a *Attachment) partSealID(i int) string {
	return fmt.Sprintf("%s/%d/%d", a.ID, i, a.PartCount())
}

// AttachmentLimits are one plan's limits (config attachments.*).
type AttachmentLimits struct {
	PerMessage int64 // bytes of one message's files; 0: no files on this plan
	PerAccount int64 // bytes of all the author's files
}

// AttachmentQuota is what a new upload must fit in, checked in the
// store's transaction that reserves it.
type AttachmentQuota struct {
	MaxFiles   int
	PerMessage int64
	PerAccount int64
}

// AttachmentStore keeps the attachments' records. DeleteMessage deletes the
// message's, DeleteUser the user's, in their transactions (the blobs are
// the service's to delete, or gc's after a crash).
type AttachmentStore interface {
	// CreateAttachment keeps the new upload a of a.MessageID, whose owner
	// is a.Owner (else EMessageNotFound), reserving a.Size: in one
	// transaction, so that uploads made at once cannot exceed q. Over
	// q.MaxFiles files or q.PerMessage bytes of the message, or
	// q.PerAccount bytes of the owner's: EPlanLimit (ErrAttachmentQuota).
	CreateAttachment(ctx context.Context, a *Attachment, q AttachmentQuota) error
	// Attachment returns the attachment id, EAttachmentNotFound when none.
	Attachment(ctx context.Context, id string) (*Attachment, error)
	// MessageAttachments returns the message's attachments, oldest first.
	MessageAttachments(ctx context.Context, messageID string) ([]*Attachment, error)
	// OwnerAttachments returns the author's attachments, oldest first
	// (the quota in settings, the export).
	OwnerAttachments(ctx context.Context, owner string) ([]*Attachment, error)
	// AddAttachmentPart records part index as stored by token: only when
	// the upload has exactly index parts (else EConflict, and nothing
	// changes). Part 0 sets the sniffed typ and executable mark. The last
	// part completes the upload, stamped now.
	AddAttachmentPart(ctx context.Context, id string, index int, token, typ string, executable bool, now time.Time) (*Attachment, error)
	// DeleteAttachment deletes the record of id; none is no error.
	DeleteAttachment(ctx context.Context, id string) error
	// EachAttachment calls fn with every attachment (gc).
	EachAttachment(ctx context.Context, fn func(*Attachment) error) error
}

// CheckAttachmentQuota is the one rule both stores apply inside the
// transaction of CreateAttachment: files and bytes of the message and the
// account, counting what is reserved already.
func CheckAttachmentQuota(q AttachmentQuota, size int64, messageFiles int, messageBytes, accountBytes int64) error {
	switch {
	case messageFiles+1 > q.MaxFiles:
		return ErrAttachmentQuota("files", fmt.Sprintf("A message can have at most %d files.", q.MaxFiles))
	case size > q.PerMessage || messageBytes+size > q.PerMessage: // the first also keeps the sum from overflowing
		return ErrAttachmentQuota("size", fmt.Sprintf("The files of one message can total at most %s on your plan (%s used).",
			FormatBytes(q.PerMessage), FormatBytes(messageBytes)))
	case size > q.PerAccount || accountBytes+size > q.PerAccount:
		return ErrAttachmentQuota("size", fmt.Sprintf("The files of your account can total at most %s on your plan (%s used).",
			FormatBytes(q.PerAccount), FormatBytes(accountBytes)))
	}
	return nil
}

// ErrAttachmentQuota is an upload over the plan's limits: field is the
// request's field that exceeds it.
func ErrAttachmentQuota(field, sentence string) error {
	return &Error{Code: EPlanLimit, Message: sentence, Fields: map[string]string{field: sentence}}
}

// ErrAttachmentNotFound is a file no message of the author has.
func ErrAttachmentNotFound() error {
	return Errorf(EAttachmentNotFound, "The file could not be found.")
}

// ErrAttachmentPartTaken is a part stored by another request first.
func ErrAttachmentPartTaken() error {
	return Errorf(EConflict, "This part of the upload was stored by another request; ask for the upload's offset and go on from there.")
}

// FormatBytes writes n bytes for people: 25 MB, 1.5 MB, 300 KB, 12 bytes
// (powers of 1000: what file managers show).
func FormatBytes(n int64) string {
	switch {
	case n >= 1_000_000_000:
		return trimUnit(float64(n)/1e9, "GB")
	case n >= 1_000_000:
		return trimUnit(float64(n)/1e6, "MB")
	case n >= 1_000:
		return trimUnit(float64(n)/1e3, "KB")
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

func trimUnit(v float64, unit string) string {
	s := strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
	return s + " " + unit
}

// CleanAttachmentName is the name a file is kept under: the last element
// of what the client sent (no folder), without control or format
// characters (a line break or tab is a space), spaces trimmed, at most MaxAttachmentNameLen bytes (cut on a
// rune, the extension kept). "" when nothing is left.
func CleanAttachmentName(name string) string {
	name = strings.ToValidUTF8(name, "")
	name = strings.ReplaceAll(name, "\\", "/")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '"' {
			return -1
		}
		return r
	}, name)
	name = strings.Trim(name, " .")
	if len(name) > MaxAttachmentNameLen {
		ext := path.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := name[:MaxAttachmentNameLen-len(ext)]
		for !utf8.ValidString(stem) {
			stem = stem[:len(stem)-1]
		}
		name = stem + ext
	}
	return name
}

// executableExts are names a system runs or installs when opened.
var executableExts = map[string]bool{
	".exe": true, ".com": true, ".scr": true, ".msi": true, ".msp": true, ".bat": true, ".cmd": true,
	".ps1": true, ".vbs": true, ".vbe": true, ".js": true, ".jse": true, ".wsf": true, ".hta": true,
	".cpl": true, ".dll": true, ".jar": true, ".apk": true, ".app": true, ".dmg": true, ".pkg": true,
	".sh": true, ".bash": true, ".command": true, ".run": true, ".bin": true, ".elf": true, ".deb": true,
	".rpm": true, ".appimage": true, ".lnk": true, ".reg": true, ".py": true, ".pl": true, ".rb": true,
}

// executableMagic are the first bytes of programs: PE (Windows), ELF,
// Mach-O (both orders, 32 and 64 bits, universal), a script's #!.
var executableMagic = [][]byte{
	[]byte("MZ"), []byte("\x7fELF"), {0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe}, {0xca, 0xfe, 0xba, 0xbe}, []byte("#!"),
}

// SniffAttachment is the type of a file from its first bytes (up to 512:
// net/http.DetectContentType) and whether it is executable, by its bytes
// or its name. An executable's type is application/octet-stream.
func SniffAttachment(name string, head []byte) (typ string, executable bool) {
	if len(head) > 512 {
		head = head[:512]
	}
	executable = executableExts[strings.ToLower(path.Ext(name))]
	for _, m := range executableMagic {
		if bytes.HasPrefix(head, m) {
			executable = true
		}
	}
	if executable {
		return "application/octet-stream", true
	}
	return http.DetectContentType(head), false
}

// AddPart is the one rule of AddAttachmentPart, applied by both stores
// inside their transaction: part index goes after the parts stored, once
// (EConflict otherwise: another request stored it first, or the upload is
// complete), part 0 sets the sniffed type, the last completes the file.
func AddPart(a *Attachment, index int, token, typ string, executable bool, now time.Time) error {
	if a.State != AttachmentUploading || index != len(a.Parts) || index >= a.PartCount() || token == "" {
		return ErrAttachmentPartTaken()
	}
	if index == 0 {
		a.Type, a.Executable = typ, executable
	}
	a.Parts = append(a.Parts, token)
	if len(a.Parts) == a.PartCount() {
		a.State, a.CompletedAt = AttachmentComplete, now
	}
	return nil
}
