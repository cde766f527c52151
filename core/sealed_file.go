package core

import (
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
)

// A file of a sealed message is encrypted by its author's client before it
// is uploaded (docs/sealed.md, "Files (v1)"): the server stores those bytes
// (sealing them again at rest, as every file) and never sees the plaintext.
// This is the format's Go implementation (the TUI seals and opens with it);
// web/ui/src/lib/sealed-file.ts is the browser's, and both pass the golden
// vectors of testdata/sealed/file-vectors-v1.json.
//
// The bytes are a header line and the plaintext in chunks of 64 KiB, each
// sealed with AES-256-GCM under a key derived as the envelope's (Argon2id
// of the NFC passphrase). A chunk's nonce is the file's random prefix and
// its index, and its associated data binds it to the message, its place
// and whether it is the last: a chunk moved, a file cut short (even at a
// chunk's edge), lengthened or moved to another message does not open.
// Both directions stream one chunk at a time, so a file of any size needs
// 64 KiB of memory.

// SealedFileMagic begins every sealed file (the server checks a sealed
// message's files begin with it).
const SealedFileMagic = "sealedfile:v1$"

// SealedFileChunk is the plaintext size of every chunk but the last.
const SealedFileChunk = 65536

const (
	sealedFileTag       = 16
	sealedFilePrefixLen = 8
	// sealedFileMaxHeader bounds the header line, "\n" included.
	sealedFileMaxHeader = 200
)

// SealedFileHeader is a sealed file's first line: the costs and salt of
// its key, and the random prefix of its chunks' nonces.
//
//	sealedfile:v1$argon2id$m=65536,t=3,p=1$SALT$PREFIX\n
type SealedFileHeader struct {
	Params SealParams
	Salt   []byte
	Prefix []byte
}

// String is h as it begins the file, with its "\n".
func (h *SealedFileHeader) String() string {
	return fmt.Sprintf("%sargon2id$m=%d,t=%d,p=%d$%s$%s\n", SealedFileMagic, h.Params.Memory, h.Params.Time, h.Params.Threads,
		sealB64.EncodeToString(h.Salt), sealB64.EncodeToString(h.Prefix))
}

// ParseSealedFileHeader reads a header line ("\n" included, as String
// writes it): one spelling only, the envelope's cost bounds.
func ParseSealedFileHeader(line string) (*SealedFileHeader, error) {
	bad := Errorf(EInvalid, "This is not a sealed file this version of Sendlater can open.")
	rest, ok := strings.CutPrefix(line, SealedFileMagic)
	// The decoder skips line breaks: the line has one, at its end.
	if !ok || len(line) > sealedFileMaxHeader || strings.Index(line, "\n") != len(line)-1 || strings.Contains(line, "\r") {
		return nil, bad
	}
	parts := strings.Split(strings.TrimSuffix(rest, "\n"), "$")
	if len(parts) != 4 || parts[0] != "argon2id" {
		return nil, bad
	}
	p, ok := parseSealCosts(parts[1])
	salt, e1 := sealB64.DecodeString(parts[2])
	prefix, e2 := sealB64.DecodeString(parts[3])
	if !ok || e1 != nil || e2 != nil || len(salt) != sealSaltLen || len(prefix) != sealedFilePrefixLen || checkSealParams(p) != nil {
		return nil, bad
	}
	return &SealedFileHeader{Params: p, Salt: salt, Prefix: prefix}, nil
}

// parseSealCosts reads "m=65536,t=3,p=1", in this spelling only.
func parseSealCosts(s string) (SealParams, bool) {
	var m, t, p uint64
	if n, err := fmt.Sscanf(s, "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || n != 3 ||
		s != fmt.Sprintf("m=%d,t=%d,p=%d", m, t, p) || m > math.MaxUint32 || t > math.MaxUint32 || p > math.MaxUint8 {
		return SealParams{}, false
	}
	return SealParams{Memory: uint32(m), Time: uint32(t), Threads: uint8(p)}, true
}

// checkSealParams checks p against the envelope's bounds.
func checkSealParams(p SealParams) error {
	shape := SealedEnvelope{Version: SealedVersion, KDF: "argon2id", Memory: p.Memory, Time: p.Time, Threads: p.Threads,
		Salt: make([]byte, sealSaltLen), Nonce: make([]byte, sealNonceLen)}
	return shape.Check()
}

// SealedFileKey is a key derived from a passphrase for one salt and costs:
// a client seals several files with one (one derivation a dialog).
type SealedFileKey struct {
	Salt   []byte
	Params SealParams
	aead   cipher.AEAD
}

// NewSealedFileKey derives a key of passphrase under a new random salt.
func NewSealedFileKey(passphrase string, p SealParams) (*SealedFileKey, error) {
	salt := make([]byte, sealSaltLen)
	rand.Read(salt)
	return DeriveSealedFileKey(passphrase, salt, p)
}

// DeriveSealedFileKey derives the key of passphrase under salt and p, the
// costs within the envelope's bounds.
func DeriveSealedFileKey(passphrase string, salt []byte, p SealParams) (*SealedFileKey, error) {
	if err := checkSealParams(p); err != nil {
		return nil, err
	}
	if len(salt) != sealSaltLen {
		return nil, Errorf(EInvalid, "A sealed file's key needs a 16-byte salt.")
	}
	aead, err := sealAEAD(sealKey(passphrase, salt, p))
	if err != nil {
		return nil, err
	}
	return &SealedFileKey{Salt: salt, Params: p, aead: aead}, nil
}

// SealedFileKeys derives the keys of one passphrase, once for each salt
// and costs: the files of a message sealed with one key open with one
// derivation. Safe for concurrent use.
type SealedFileKeys struct {
	passphrase string
	mu         sync.Mutex
	keys       map[string]*SealedFileKey
}

// NewSealedFileKeys holds passphrase's keys.
func NewSealedFileKeys(passphrase string) *SealedFileKeys {
	return &SealedFileKeys{passphrase: passphrase, keys: map[string]*SealedFileKey{}}
}

// For is the key of the header h.
func (ks *SealedFileKeys) For(h *SealedFileHeader) (*SealedFileKey, error) {
	id := fmt.Sprintf("%x/%d/%d/%d", h.Salt, h.Params.Memory, h.Params.Time, h.Params.Threads)
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if k := ks.keys[id]; k != nil {
		return k, nil
	}
	k, err := DeriveSealedFileKey(ks.passphrase, h.Salt, h.Params)
	if err == nil {
		ks.keys[id] = k
	}
	return k, err
}

// sealedFileNonce is a chunk's nonce: the file's prefix and the index.
func sealedFileNonce(prefix []byte, index uint32) []byte {
	return binary.BigEndian.AppendUint32(append(make([]byte, 0, sealNonceLen), prefix...), index)
}

// sealedFileAD is a chunk's associated data: the message, the chunk's
// index and whether it is the last.
func sealedFileAD(messageID string, index uint32, last bool) []byte {
	ad := binary.BigEndian.AppendUint32([]byte("sendlater sealed file v1\n"+messageID+"\n"), index)
	if last {
		return append(ad, 1)
	}
	return append(ad, 0)
}

// SealedFileSize is the size of a file of plain bytes once sealed under a
// header of headerLen bytes: the header, the bytes and a tag a chunk (an
// empty file is one empty chunk). The upload declares it.
func SealedFileSize(headerLen int, plain int64) int64 {
	chunks := (plain + SealedFileChunk - 1) / SealedFileChunk
	return int64(headerLen) + plain + sealedFileTag*max(chunks, 1)
}

// OpenedFileSize is the plaintext size of a sealed file of sealed bytes
// with a header of headerLen bytes; false when no plaintext seals to it.
func OpenedFileSize(headerLen int, sealed int64) (int64, bool) {
	const full = SealedFileChunk + sealedFileTag
	body := sealed - int64(headerLen)
	if body < sealedFileTag {
		return 0, false
	}
	chunks, rest := body/full, body%full
	switch {
	case rest == 0:
	case rest > sealedFileTag || chunks == 0 && rest == sealedFileTag:
		chunks++
	default: // an empty last chunk after full ones: never written
		return 0, false
	}
	return body - sealedFileTag*chunks, true
}

// sealedFileDefaultHeader is the length of a header at DefaultSealParams
// (74 bytes): the header of every file the apps seal.
var sealedFileDefaultHeader = len((&SealedFileHeader{Params: DefaultSealParams, Salt: make([]byte, sealSaltLen),
	Prefix: make([]byte, sealedFilePrefixLen)}).String())

// ShownOpenedFileSize is the plaintext size of a sealed file of sealed
// bytes as the server shows it without reading its header: exact for a
// header at the default costs, a few bytes more for costlier ones (their
// header is up to 4 bytes longer), which the size in words hides.
func ShownOpenedFileSize(sealed int64) int64 {
	for h := sealedFileDefaultHeader; h <= sealedFileMaxHeader; h++ {
		if n, ok := OpenedFileSize(h, sealed); ok {
			return n
		}
	}
	return 0
}
