package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// TestRequestStack: a request leaves its goroutine's stack at 16 KiB or
// less. Every connection's goroutine keeps the stack its requests grew
// until the collector shrinks it, so after a pile-up of 1,000 connections
// each KiB here is a MB of the server's memory. github.com/goccy/go-json,
// which encoded the answers, the stored line items and the events until
// 2026-11-28, needs a 9 KiB stack frame and took every request that wrote
// JSON to 32 KiB.
//
// On Postgres, the database the bench measures: on SQLite, whose driver
// is C translated to Go, a request that writes takes its stack past
// 32 KiB by itself.
func TestRequestStack(t *testing.T) {
	db := dbtest.Postgres(t, migrations()...)
	e := newEnv(t, db, nil)
	acme := map[string]string{"X-Tenant-ID": e.acme.ID}
	body := invoiceBody("USD", `{"description":"Seat","quantity":2,"unit_amount":1000,"tax_rate_bps":825}`)
	first := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: e.keyAll, header: acme, body: body})
	if first.status != http.StatusCreated {
		t.Fatalf("create invoice: %d %s", first.status, first.body)
	}
	id := first.json(t)["id"].(string)
	h := e.api.Handler()
	tests := []struct {
		name         string
		method, path string
		body         string
		want         int
	}{
		{"GetInvoice", http.MethodGet, "/api/v1/collections/invoices/" + id, "", http.StatusOK},
		{"ListInvoices", http.MethodGet, "/api/v1/collections/invoices?limit=20", "", http.StatusOK},
		// Stores the line items and records an event: JSON three times.
		{"CreateInvoice", http.MethodPost, "/api/v1/collections/invoices", body, http.StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perGoroutine := stackPerGoroutine(t, 200, func() {
				req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
				req.Header.Set("Authorization", "Bearer "+e.keyAll)
				req.Header.Set("X-Tenant-ID", e.acme.ID)
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != tt.want {
					t.Errorf("status = %d, want %d: %s", w.Code, tt.want, w.Body)
				}
			})
			t.Logf("%.1f KiB of stack per goroutine", float64(perGoroutine)/1024)
			if perGoroutine > 24<<10 { // 16 KiB and what other goroutines grew meanwhile
				t.Fatalf("a request grew its goroutine's stack to %.1f KiB, over 16", float64(perGoroutine)/1024)
			}
		})
	}
}

// stackPerGoroutine runs serve on n goroutines at once and holds them
// when it returns, with the collector off (it would shrink their stacks):
// the stack memory in use grew by about n times what each grew to.
func stackPerGoroutine(t *testing.T, n int, serve func()) uint64 {
	t.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var served, done sync.WaitGroup
	hold := make(chan struct{})
	served.Add(n)
	for range n {
		done.Go(func() {
			serve()
			served.Done()
			<-hold
		})
	}
	served.Wait()
	runtime.ReadMemStats(&after)
	close(hold)
	done.Wait()
	return (after.StackInuse - before.StackInuse) / uint64(n)
}
