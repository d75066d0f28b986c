package main

import (
	"io"
	"sync"
	"time"
)

// logBatch is serve's log output: lines gather in memory and a goroutine
// of its own writes them out every interval, as soon as they pass
// logBatchSize, and on Close. Writing each access log line on its own was
// one write(2) per request: 0.14 s of the 4.9 s of CPU of a GET-invoice
// bench run (`cd bench && go run . --profile --only "get invoice"`), 3 %
// of the server's CPU per request.
//
// A request does not wait for the output, only to append its line (unless
// the output is stalled, below): the writer takes the lines gathered so
// far and writes them with the lock released. Until 2026-11-28 the
// request whose line filled the buffer wrote it out itself, holding the
// lock, and every other request's line waited behind that write(2): on
// the disk that also holds Postgres's
// WAL, a write-heavy endpoint at a steady rate (create invoice, at half
// the baseline's throughput) had its p99 at 1.77× the baseline's (rounds
// 1.51–2.02×); with the write off the requests, 1.29× (rounds 1.06–1.37×)
// (`cd bench && go run . --only "create invoice"`, one run each, with
// --profile --rounds 2 before and --rounds 4 after).
//
// A line is never dropped: when the output falls so far behind that
// logBatchLimit bytes wait, writers wait for it. A process killed without
// running Close loses at most the last interval's lines
// (docs/operations.md).
type logBatch struct {
	out     io.Writer
	mu      sync.Mutex
	taken   sync.Cond // signalled when the writer takes the pending lines
	pending []byte    // lines the writer has not taken yet
	err     error     // the output's last error, reported to the next line
	closed  bool      // after Close every line is written out at once
	full    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// logBatchEvery is how long serve's log lines may wait in the batch.
const logBatchEvery = 100 * time.Millisecond

// logBatchSize is how many bytes of lines make the writer write them out
// before the interval is up: one write(2) for a hundred access log lines.
const logBatchSize = 32 << 10

// logBatchLimit is how many bytes of lines may wait for a slow output
// before writers wait too.
const logBatchLimit = 8 * logBatchSize

// newLogBatch starts batching the lines written to it onto out, writing
// them out every interval until Close.
func newLogBatch(out io.Writer, interval time.Duration) *logBatch {
	b := &logBatch{
		out: out, pending: make([]byte, 0, logBatchSize),
		full: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	b.taken.L = &b.mu
	go b.writeEvery(interval)
	return b
}

// Write adds p, one log line as zerolog writes it, to the batch.
func (b *logBatch) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.pending) >= logBatchLimit && !b.closed {
		b.taken.Wait()
	}
	if b.closed {
		return b.out.Write(p)
	}
	b.pending = append(b.pending, p...)
	if len(b.pending) >= logBatchSize {
		select {
		case b.full <- struct{}{}:
		default: // the writer is already woken
		}
	}
	return len(p), b.err
}

// writeEvery writes out the pending lines every interval, and whenever
// they pass logBatchSize, until Close.
func (b *logBatch) writeEvery(interval time.Duration) {
	defer close(b.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	spare := make([]byte, 0, logBatchSize)
	for {
		select {
		case <-t.C:
		case <-b.full:
		case <-b.stop:
			return
		}
		spare = b.writeOut(spare)
	}
}

// writeOut swaps the pending lines for the empty buffer spare, writes them
// with the lock released, and returns their buffer, emptied, for the next
// swap.
func (b *logBatch) writeOut(spare []byte) []byte {
	b.mu.Lock()
	lines := b.pending
	b.pending = spare[:0]
	b.taken.Broadcast()
	b.mu.Unlock()
	if len(lines) == 0 {
		return lines
	}
	_, err := b.out.Write(lines)
	b.mu.Lock()
	b.err = err
	b.mu.Unlock()
	return lines[:0]
}

// Close stops the writer and writes out what is left; lines written after
// it go out one by one.
func (b *logBatch) Close() error {
	close(b.stop)
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.taken.Broadcast()
	if len(b.pending) == 0 {
		return nil
	}
	_, err := b.out.Write(b.pending)
	b.pending = nil
	return err
}
