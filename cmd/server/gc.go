package main

import (
	"os"
	"runtime/debug"
)

// serverGCPercent is the garbage collector's setting for `server serve`
// where the environment sets none (GOGC wins when set). A request
// allocates a few kilobytes that die with it, so Go's default GOGC=100
// collects often for little: at 200 the collector runs half as often.
// What it buys (`cd bench && go run . --quick --only "get invoice,create
// invoice,list invoices,entitlements"`, one run before and after): server
// CPU per GET invoice 0.28 → 0.25 ms, throughput against the baseline get
// invoice 0.69 → 0.80×, list 0.83 → 0.91×, create invoice and
// entitlements unchanged within the run's noise.
//
// serve sets no soft memory limit (GOMEMLIMIT) of its own any more. One of
// 40 MiB, set until 2026-11-27, did not bind at full speed (peak RSS 57 MB
// with and without it) and hurt when requests piled up during a stall of
// the machine: with the heap near the limit, the collector ran back to
// back while the backlog waited. In the bench's fixed-rate runs at half
// the baseline's throughput (median of 6 rounds) tenantkit's p99 on list
// invoices, invoice preview, get invoice and entitlements was 1.72×,
// 4.00×, 1.54× and 1.57× the baseline's with the limit (`cd bench && go
// run .`, a full run) and 0.96×, 1.43×, 0.85× and 0.84× without it
// (`GOMEMLIMIT=off go run . --only "list invoices,invoice preview,get
// invoice,entitlements"`, one run each), and the peak RSS of those runs
// was 97 MB with it and 83 MB without. Tried again on 2026-11-28, with
// limitInFlight running requests on worker goroutines (since dropped):
// entitlements' half-rate p99 2.07× with the limit, 0.77× without (`go
// run . --only entitlements`, 6 rounds each).
//
// Also tried then and dropped: lowering GOGC after each collection as the
// live heap grows, for a heap goal of twice the live heap plus 8 MiB. The
// bench's pile-up (bench/pileup.go) ended at 95 and 99 MB with it, 101
// without, and the fixed-rate runs' peak stayed at 99 MB: a pile-up's RSS
// is mostly stacks and connections, not the collector's headroom.
const serverGCPercent = 200

// tuneGC applies serverGCPercent unless GOGC is set.
func tuneGC() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(serverGCPercent)
	}
}
