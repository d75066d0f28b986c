package main

import (
	"fmt"
	"strings"
	"sync"
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
		for range logBatchSize/len(line) + 1 {
			fmt.Fprint(b, line)
		}
		if got := len(out.String()); got != logBatchSize {
			t.Fatalf("%d bytes written out, want the full buffer of %d", got, logBatchSize)
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
