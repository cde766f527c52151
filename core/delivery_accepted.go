package core

// A mail server's acceptance of an email (its 250 after DATA) is the one
// outcome that must not be lost: a pass killed before it is recorded sends
// the email again when the claim's lease runs out. So the sent outcome of a
// recipient is settled as soon as the server took the email, while the
// message's later recipients are still being sent, instead of after all of
// them; the outcome of the last recipient sent is settled with the round's
// other outcomes, at once. An acceptance waits acceptanceDelay before its
// settlement starts, so that a message whose recipients all go out within
// it (a mail server on the same network) is settled once, by the round, as
// before: settling each message two or three times cost 30% of the
// throughput of ten-recipient messages. What a kill can still lose is an
// acceptance younger than that delay plus one settlement's time
// (docs/delivery.md).

import (
	"log/slog"
	"sync"
	"time"
)

// acceptanceDelay is how long an acceptance waits for the message's next
// ones before it is settled on its own.
const acceptanceDelay = 25 * time.Millisecond

// acceptances settles the sent outcomes of one claimed message as they
// come, in the background: one settlement at a time, each taking every
// outcome that came while the one before was being written, so that a
// message of ten recipients costs a few settlements, not ten.
type acceptances struct {
	d   *Delivery
	id  string // the message's; not its claimed copy, whose lease keepClaim moves
	now time.Time
	log *slog.Logger

	wg        sync.WaitGroup
	mu        sync.Mutex
	pending   []recipientOutcome
	running   bool        // settling now, or due to (timer)
	timer     *time.Timer // the delay before the first settlement
	delivered int         // the sent outcomes its settlements applied
}

func (d *Delivery) acceptances(claimed *Message, now time.Time, log *slog.Logger) *acceptances {
	return &acceptances{d: d, id: claimed.ID, now: now, log: log}
}

// add settles the sent outcome o as soon as it can.
func (a *acceptances) add(o recipientOutcome) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending = append(a.pending, o)
	if !a.running {
		a.running = true
		a.wg.Add(1)
		a.timer = time.AfterFunc(acceptanceDelay, a.run)
	}
}

func (a *acceptances) run() {
	defer a.wg.Done()
	for {
		a.mu.Lock()
		batch := a.pending
		a.pending = nil
		if len(batch) == 0 {
			a.running = false
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
		applied := 0
		_, err := a.d.settle(a.id, func(m *Message) ([]*OutboxItem, error) {
			// Only sent outcomes, recorded whoever holds the claim now.
			items, tally, _ := applyOutcomes(m, false, batch, a.now, false)
			applied = tally.Delivered
			return items, nil
		})
		if err != nil {
			// The round's settlement records them (it gets every outcome).
			if ErrorCode(err) != EMessageNotFound {
				a.log.Warn("recording a sent email at once failed; the round's settlement records it", "err", err)
			}
			applied = 0
		}
		a.mu.Lock()
		a.delivered += applied
		a.mu.Unlock()
	}
}

// wait waits for the settlements under way and returns how many sent
// outcomes they applied. One still waiting out its delay does not start:
// the round's settlement records its outcomes.
func (a *acceptances) wait() int {
	a.mu.Lock()
	if a.timer != nil && a.timer.Stop() {
		a.pending, a.running = nil, false
		a.wg.Done()
	}
	a.mu.Unlock()
	a.wg.Wait()
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.delivered
}
