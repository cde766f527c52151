package bolt

import (
	"bytes"
	"testing"
)

// A message record of version 1 (before IdempotencyKey) still reads.
func TestMessageRecordVersion1Reads(t *testing.T) {
	r := messageRecord{ID: []byte("m1"), Owner: "u1", Title: []byte("t"), Interval: "1M", Status: "scheduled",
		SendDate: 42, EmailMessageID: "x@y"}
	v1 := r.marshal()
	v1 = append([]byte{1}, v1[1:len(v1)-1]...) // version 1, no key (an empty string is one byte)
	var got messageRecord
	if err := got.unmarshal(v1); err != nil {
		t.Fatal(err)
	}
	if got.Owner != "u1" || got.SendDate != 42 || got.EmailMessageID != "x@y" || got.IdempotencyKey != "" || !bytes.Equal(got.Title, []byte("t")) {
		t.Fatalf("read %+v", got)
	}
	r.IdempotencyKey = "k"
	if err := got.unmarshal(r.marshal()); err != nil || got.IdempotencyKey != "k" {
		t.Fatalf("version 2: %+v %v", got, err)
	}
}
