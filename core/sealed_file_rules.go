package core

import (
	"bytes"
	"context"
)

// The server's rules around sealed messages' files (docs/sealed.md,
// "Files (v1)"): it has no key, so it checks the shape it can see. A file
// made on a sealed message is clientSealed and begins with a sealed file's
// header; a file of a plain message never is; a message is never sealed
// or unsealed under files of the other kind.

// Sentences of the refusals, on the field the client shows them by.
const (
	sealedFileSentence = "a sealed message's file must be sealed by your app (docs/sealed.md)"
	sealSwitchSentence = "remove the files first: a message's files are sealed the way the message is"
)

// ErrFileNotSealed refuses a sealed message's file that is not a sealed
// file, or a file made before its message was sealed or unsealed.
func ErrFileNotSealed() error {
	return &Error{Code: EValidation, Message: "A sealed message's file must be sealed by your app (docs/sealed.md).",
		Fields: map[string]string{"file": sealedFileSentence}}
}

// ErrSealSwitchWithFiles refuses to seal a message with plain files, or to
// unseal one with sealed files.
func ErrSealSwitchWithFiles() error {
	return &Error{Code: EValidation, Message: "Remove the files first: a message's files are sealed the way the message is.",
		Fields: map[string]string{"sealed": sealSwitchSentence}}
}

// checkSealedFileHead checks the first bytes of a clientSealed file (up to
// 512, the part's whole head): a header a reader accepts, and a declared
// size some plaintext seals to under it. The rest only a key can check.
func checkSealedFileHead(head []byte, size int64) error {
	end := bytes.IndexByte(head, '\n')
	if !bytes.HasPrefix(head, []byte(SealedFileMagic)) || end < 0 {
		return ErrFileNotSealed()
	}
	if _, err := ParseSealedFileHeader(string(head[:end+1])); err != nil {
		return ErrFileNotSealed()
	}
	if _, ok := OpenedFileSize(end+1, size); !ok {
		return ErrFileNotSealed()
	}
	return nil
}

// sealSwitchFiles fetches the message's files when up may seal or unseal
// it (the check, checkSealSwitch, runs in the update on the message as
// stored); nil otherwise.
func (s *MessageService) sealSwitchFiles(ctx context.Context, id string, up MessageUpdate) ([]*Attachment, error) {
	if s.Files == nil || up.Sealed == nil && up.Body == nil {
		return nil, nil
	}
	return s.Files.MessageFiles(ctx, id)
}

// checkSealSwitch refuses up when it seals m while a file is plain, or
// unseals it while a file is sealed.
func checkSealSwitch(m *Message, up MessageUpdate, files []*Attachment) error {
	sealing, unsealing := up.Sealed != nil && !m.IsSealed(), up.Body != nil && m.IsSealed()
	for _, a := range files {
		if a.MessageID == m.ID && (sealing && !a.ClientSealed || unsealing && a.ClientSealed) {
			return ErrSealSwitchWithFiles()
		}
	}
	return nil
}

// checkFileStillFits refuses a part of a file whose message was sealed or
// unsealed since the file was made (a race with checkSealSwitch: the file
// then never completes, and gc removes it).
func (s *AttachmentService) checkFileStillFits(ctx context.Context, a *Attachment) error {
	m, err := s.Messages.FindMessageByID(ctx, a.MessageID)
	if err != nil {
		return err
	}
	if m.IsSealed() != a.ClientSealed {
		return ErrFileNotSealed()
	}
	return nil
}

// checkSealedPart checks a part before it is recorded: a sealed file's
// head, and that the message is still sealed the way the file is.
func (s *AttachmentService) checkSealedPart(ctx context.Context, a *Attachment, head *headReader) error {
	if head != nil && a.ClientSealed {
		if err := checkSealedFileHead(head.buf, a.Size); err != nil {
			return err
		}
	}
	return s.checkFileStillFits(ctx, a)
}
