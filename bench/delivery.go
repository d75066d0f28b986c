package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// deliveryResult is the outbound webhooks' throughput on one replica:
// Events mutations (ticket creates, each one event) made through
// tenantkit's API while its delivery queue delivers them to a receiver on
// 127.0.0.1 that answers 204 at once.
type deliveryResult struct {
	Events  int `json:"events"`
	Workers int `json:"workers"`
	// Mutations is how long the mutations took; Elapsed is from the first
	// mutation to the last delivery received.
	Mutations time.Duration `json:"mutations_ns"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	// PerSecond is Events / Elapsed: events delivered per second.
	PerSecond float64 `json:"events_per_second"`
	// Duplicates counts webhook-ids received more than once.
	Duplicates int `json:"duplicates"`
}

// Defaults of the delivery measurement.
const (
	deliveryEvents      = 2000
	deliveryEventsQuick = 300
	deliveryWorkers     = 4 // serve's default --webhook-workers
	deliveryClients     = 8 // mutations in flight
)

// measureDelivery starts one tenantkit server with its delivery queue and
// an endpoint of one tenant pointing at a local receiver, makes the
// mutations, and waits for every delivery. It deletes the endpoint at the
// end: it runs after the endpoint comparisons, whose tenants must have
// none (the baseline dispatches to none).
func measureDelivery(ctx context.Context, cfg config, bins binaries, dbURL string, fx *fixture, dir string) (*deliveryResult, error) {
	n := deliveryEvents
	if cfg.Quick {
		n = deliveryEventsQuick
	}
	var (
		mu   sync.Mutex
		seen = map[string]int{}
		last atomic.Int64 // unix ns of the delivery that completed the set
	)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	all := make(chan struct{})
	receiver := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen[r.Header.Get("webhook-id")]++
		if len(seen) == n && last.Load() == 0 {
			last.Store(time.Now().UnixNano())
			close(all)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = receiver.Serve(ln) }()
	defer receiver.Close()

	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--database-url", withParams(dbURL, "application_name=tenantkit"),
		"--migrate=false", "--rate-limit", "0", "--scheduler-interval", "0",
		"--webhook-allow-hosts", "127.0.0.1", "--webhook-workers", strconv.Itoa(deliveryWorkers)}
	tk, err := startProc("tenantkit", bins.Server, port, args, childEnv(), filepath.Join(dir, "tenantkit-delivery.log"))
	if err != nil {
		return nil, err
	}
	defer tk.stop()
	if err := tk.waitReady(ctx, "/api/health/ready", 30*time.Second); err != nil {
		return nil, err
	}
	tenant := fx.Tenants[0]
	var created struct {
		ID string `json:"id"`
	}
	hook := fmt.Sprintf(`{"url":"http://%s/hooks","event_types":["ticket.created"]}`, ln.Addr())
	if err := call(ctx, tk.URL, "POST", "/api/webhook-endpoints", tenant.Key, hook, http.StatusCreated, &created); err != nil {
		return nil, err
	}
	defer func() {
		_ = call(context.WithoutCancel(ctx), tk.URL, "DELETE", "/api/webhook-endpoints/"+created.ID, tenant.Key, "", http.StatusNoContent, nil)
	}()

	start := time.Now()
	var next atomic.Int64
	errs := make(chan error, deliveryClients)
	var wg sync.WaitGroup
	for range deliveryClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				body := fmt.Sprintf(`{"subject":"Delivery bench %d","description":"One event, one delivery.","priority":"normal"}`, i)
				if err := call(ctx, tk.URL, "POST", "/api/tickets", tenant.Key, body, http.StatusCreated, nil); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	mutations := time.Since(start)
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	select {
	case <-all:
	case <-time.After(5 * time.Minute):
		mu.Lock()
		got := len(seen)
		mu.Unlock()
		return nil, fmt.Errorf("delivery: %d of %d events delivered within 5 minutes", got, n)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	time.Sleep(200 * time.Millisecond) // late duplicates
	res := &deliveryResult{Events: n, Workers: deliveryWorkers, Mutations: mutations, Elapsed: time.Unix(0, last.Load()).Sub(start)}
	res.PerSecond = float64(n) / res.Elapsed.Seconds()
	mu.Lock()
	for _, k := range seen {
		if k > 1 {
			res.Duplicates++
		}
	}
	mu.Unlock()
	return res, nil
}

// call sends one API request with key and decodes the answer into out
// (when not nil), failing unless it has status want.
func call(ctx context.Context, base, method, path, key, body string, want int, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}
