package main

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// logBatch is serve's log output: lines gather in a buffer that is written
// out when the next line would not fit (32 KB), every interval, and on
// Close. Writing each access log line on its own was one write(2) per
// request: 0.14 s of the 4.9 s of CPU of a GET-invoice bench run (`cd
// bench && go run . --profile --only "get invoice"`), 3 % of the server's
// CPU per request. A line is never dropped; a writer waits while the
// buffer is written out. A process killed without running Close loses at
// most the last interval's lines (docs/operations.md).
type logBatch struct {
	mu     sync.Mutex
	buf    *bufio.Writer
	closed bool // after Close every line is written out at once
	stop   chan struct{}
	done   chan struct{}
}

// logBatchEvery is how long serve's log lines may wait in the batch.
const logBatchEvery = 100 * time.Millisecond

// logBatchSize is the buffer that makes one write out of many lines.
const logBatchSize = 32 << 10

// newLogBatch starts batching the lines written to it onto w, flushing
// every interval until Close.
func newLogBatch(w io.Writer, interval time.Duration) *logBatch {
	b := &logBatch{buf: bufio.NewWriterSize(w, logBatchSize), stop: make(chan struct{}), done: make(chan struct{})}
	go b.flushEvery(interval)
	return b
}

// Write adds p, one log line as zerolog writes it, to the batch.
func (b *logBatch) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if err == nil && b.closed {
		err = b.buf.Flush()
	}
	return n, err
}

// flushEvery writes the batch out every interval until Close.
func (b *logBatch) flushEvery(interval time.Duration) {
	defer close(b.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = b.flush() // the next write reports a broken output
		case <-b.stop:
			return
		}
	}
}

// flush writes out what the batch holds.
func (b *logBatch) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Flush()
}

// Close stops the timer and writes out what is left; lines written after
// it go out one by one.
func (b *logBatch) Close() error {
	close(b.stop)
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return b.buf.Flush()
}
