package watch_test

import (
	"context"
	"testing"
	"time"

	"github.com/sendlater/sendlater/store/watch"
)

func signalled(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-time.After(50 * time.Millisecond):
		return false
	}
}

func TestHub(t *testing.T) {
	var h watch.Hub
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	a, cancelA := h.Watch(ctx, "a")
	b, cancelB := h.Watch(context.Background(), "b")
	defer cancelB()

	h.Notify("a")
	h.Notify("a")
	if !signalled(a) || signalled(a) {
		t.Fatal("a burst is not exactly one signal")
	}
	if signalled(b) {
		t.Fatal("another owner's watcher was told")
	}
	h.NotifyAll()
	if !signalled(a) || !signalled(b) {
		t.Fatal("NotifyAll missed a watcher")
	}
	cancelA()
	cancelA() // twice is fine
	h.Notify("a")
	if signalled(a) {
		t.Fatal("a cancelled watch was told")
	}
	c, _ := h.Watch(ctx, "c")
	stop()
	time.Sleep(10 * time.Millisecond)
	h.NotifyAll()
	if signalled(c) {
		t.Fatal("a watch whose context ended was told")
	}
}
