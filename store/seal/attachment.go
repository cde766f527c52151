package seal

// fieldAttachmentName is an attachment's file name, bound to its id.
const fieldAttachmentName = "attachmentName"

// attachmentID is the record an attachment's name is sealed to.
func attachmentID(id string) string { return "attachment/" + id }

// SealAttachmentName seals the file name of attachment id: a name tells
// what a file is ("will.pdf", "passwords.txt"), so it is kept as a
// message's words are.
func (s *Sealer) SealAttachmentName(id, name string) []byte {
	return s.sealField(attachmentID(id), fieldAttachmentName, name)
}

// OpenAttachmentName opens what SealAttachmentName sealed.
func (s *Sealer) OpenAttachmentName(id string, sealed []byte) (string, error) {
	return s.openField(attachmentID(id), fieldAttachmentName, sealed)
}
