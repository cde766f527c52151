package web

import "github.com/sendlater/sendlater/core"

// EventJSON is one entry of a message's timeline (GET
// /api/messages/{id}/events): kind is created, edited, postponed, paused,
// resumed, reminded, reminder-failed, sent, retrying, failed, refused,
// webhook or held; actor who did it ("" for the delivery itself);
// recipient the address an outcome is about; detail the new date of a
// postpone or the mail server's reply; nextAttemptAt when a retry comes.
type EventJSON struct {
	At            int64          `json:"at"`
	Kind          core.EventKind `json:"kind"`
	Actor         string         `json:"actor,omitempty"`
	Recipient     string         `json:"recipient,omitempty"`
	Detail        string         `json:"detail,omitempty"`
	NextAttemptAt *int64         `json:"nextAttemptAt,omitempty"`
}

// NewEventJSON is e on the wire.
func NewEventJSON(e *core.MessageEvent) EventJSON {
	return EventJSON{At: millis(e.At), Kind: e.Kind, Actor: e.Actor, Recipient: e.Recipient, Detail: e.Detail,
		NextAttemptAt: optMillis(e.NextAttemptAt)}
}

// Core is the event j describes, of message id.
func (j *EventJSON) Core(id string) *core.MessageEvent {
	return &core.MessageEvent{MessageID: id, At: fromMillis(j.At), Kind: j.Kind, Actor: j.Actor, Recipient: j.Recipient,
		Detail: j.Detail, NextAttemptAt: fromOptMillis(j.NextAttemptAt)}
}

// EventsJSON is a timeline on the wire.
func EventsJSON(es []*core.MessageEvent) []EventJSON {
	out := make([]EventJSON, len(es))
	for i, e := range es {
		out[i] = NewEventJSON(e)
	}
	return out
}

func eventsCore(id string, js []EventJSON) []*core.MessageEvent {
	out := make([]*core.MessageEvent, len(js))
	for i := range js {
		out[i] = js[i].Core(id)
	}
	return out
}
