package bolt

import (
	"bytes"
	"testing"
)

// Message records of version 1 (before IdempotencyKey) and 2 (before
// Recipients) still read.
func TestMessageRecordVersion1Reads(t *testing.T) {
	r := messageRecord{ID: []byte("m1"), Owner: "u1", Title: []byte("t"), Interval: "1M", Status: "scheduled",
		SendDate: 42, EmailMessageID: "x@y"}
	v1 := r.marshal()
	v1 = append([]byte{1}, v1[1:len(v1)-2]...) // version 1, no key nor recipients (each empty is one byte)
	var got messageRecord
	if err := got.unmarshal(v1); err != nil {
		t.Fatal(err)
	}
	if got.Owner != "u1" || got.SendDate != 42 || got.EmailMessageID != "x@y" || got.IdempotencyKey != "" || !bytes.Equal(got.Title, []byte("t")) {
		t.Fatalf("read %+v", got)
	}
	r.IdempotencyKey = "k"
	v3 := r.marshal()
	v2 := append([]byte{2}, v3[1:len(v3)-1]...) // version 2: no recipients
	if err := got.unmarshal(v2); err != nil || got.IdempotencyKey != "k" || got.Recipients != nil {
		t.Fatalf("version 2: %+v %v", got, err)
	}
	r.Recipients = []byte("sealed list")
	if err := got.unmarshal(r.marshal()); err != nil || got.IdempotencyKey != "k" || string(got.Recipients) != "sealed list" {
		t.Fatalf("version 3: %+v %v", got, err)
	}
}
