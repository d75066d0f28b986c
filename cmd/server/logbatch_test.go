package main

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLogBatch(t *testing.T) {
	t.Run("WrittenOutAfterTheInterval", func(t *testing.T) {
		var out lockedBuffer
		b := newLogBatch(&out, 20*time.Millisecond)
		defer b.Close()
		fmt.Fprintln(b, `{"message":"request"}`)
		if got := out.String(); got != "" {
			t.Fatalf("written out at once: %q", got)
		}
		deadline := time.Now().Add(5 * time.Second)
		for out.String() == "" && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got, want := out.String(), "{\"message\":\"request\"}\n"; got != want {
			t.Fatalf("after the interval: %q, want %q", got, want)
		}
	})
	t.Run("WrittenOutWhenFull", func(t *testing.T) {
		var out lockedBuffer
		b := newLogBatch(&out, time.Hour)
		defer b.Close()
		line := strings.Repeat("x", 1023) + "\n"
		for range logBatchSize / len(line) {
			fmt.Fprint(b, line)
		}
		waitFor(t, func() bool { return len(out.String()) == logBatchSize })
	})
	t.Run("WritersDoNotWaitForTheOutput", func(t *testing.T) {
		out := &stalledWriter{release: make(chan struct{})}
		b := newLogBatch(out, time.Millisecond)
		defer b.Close()
		defer close(out.release)
		fmt.Fprintln(b, "taken by the writer, which then stalls")
		waitFor(t, func() bool { return out.stalled.Load() })
		done := make(chan struct{})
		go func() {
			defer close(done)
			line := strings.Repeat("z", 1023) + "\n"
			for range (logBatchLimit - 1) / len(line) {
				fmt.Fprint(b, line)
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("lines waited for a stalled output before the limit")
		}
	})
	t.Run("WritersWaitPastTheLimit", func(t *testing.T) {
		out := &stalledWriter{release: make(chan struct{})}
		b := newLogBatch(out, time.Millisecond)
		fmt.Fprintln(b, "taken by the writer, which then stalls")
		waitFor(t, func() bool { return out.stalled.Load() })
		line := strings.Repeat("w", 1023) + "\n"
		var written atomic.Int64
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 2 * logBatchLimit / len(line) {
				fmt.Fprint(b, line)
				written.Add(int64(len(line)))
			}
		}()
		time.Sleep(50 * time.Millisecond)
		if got := written.Load(); got > logBatchLimit {
			t.Fatalf("%d bytes accepted while the output stalled, want at most %d", got, logBatchLimit)
		}
		close(out.release)
		<-done
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := out.n.Load(), int64(len("taken by the writer, which then stalls\n"))+written.Load(); got != want {
			t.Fatalf("%d bytes written out, want %d: no line may be dropped", got, want)
		}
	})
	t.Run("CloseWritesOutTheRest", func(t *testing.T) {
		var out lockedBuffer
		b := newLogBatch(&out, time.Hour)
		fmt.Fprintln(b, "one")
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(b, "two")
		if got, want := out.String(), "one\ntwo\n"; got != want {
			t.Fatalf("got %q, want %q: lines after Close go out at once", got, want)
		}
	})
	t.Run("ConcurrentLinesStayWhole", func(t *testing.T) {
		var out lockedBuffer
		b := newLogBatch(&out, time.Millisecond)
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := range 500 {
					fmt.Fprintf(b, "writer %d line %d %s\n", w, i, strings.Repeat("y", 200))
				}
			})
		}
		wg.Wait()
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 8*500 {
			t.Fatalf("%d lines, want %d", len(lines), 8*500)
		}
		for _, l := range lines {
			var w, i int
			var rest string
			if n, _ := fmt.Sscanf(l, "writer %d line %d %s", &w, &i, &rest); n != 3 || len(rest) != 200 {
				t.Fatalf("broken line %q", l)
			}
		}
	})
}

// stalledWriter blocks its first Write until release is closed, as a
// disk that stops answering would, and counts the bytes written.
type stalledWriter struct {
	release chan struct{}
	stalled atomic.Bool
	n       atomic.Int64
}

func (w *stalledWriter) Write(p []byte) (int, error) {
	if !w.stalled.Swap(true) {
		<-w.release
	}
	w.n.Add(int64(len(p)))
	return len(p), nil
}

// waitFor fails t unless cond holds within 5 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
