package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// A pile-up is what a stall of the machine does to a server in the
// fixed-rate runs, made the same for both servers every time: the server
// is stopped (SIGSTOP) while pileUpRequests requests of one endpoint, each
// on a connection of its own, arrive; then it is let go and answers them
// all. The fixed-rate runs' peak RSS depends on whether and how long the
// machine stalls during them; this one does not.
const (
	pileUpRequests = 1000
	pileUpWaves    = 3
	pileUpStop     = 500 * time.Millisecond
	pileUpEndpoint = "entitlements"
)

// pileUpResult is both servers' RSS through pileUpWaves pile-ups.
type pileUpResult struct {
	Endpoint string `json:"endpoint"`
	Requests int    `json:"requests"`
	// Idle is the RSS before the first wave; Waves the VmHWM after each.
	TKIdle    int64   `json:"tenantkit_idle"`
	BaseIdle  int64   `json:"baseline_idle"`
	TKWaves   []int64 `json:"tenantkit_vmhwm_after_wave"`
	BaseWaves []int64 `json:"baseline_vmhwm_after_wave"`
	// Failed counts requests that did not get a 2xx, over both servers.
	Failed int `json:"failed"`
}

// measurePileUp runs the pile-ups on a fresh pair of servers.
func measurePileUp(ctx context.Context, cfg config, bins binaries, dbURL string, fx *fixture, dir string) (*pileUpResult, error) {
	ep, ok := endpointNamed(pileUpEndpoint)
	if !ok {
		return nil, fmt.Errorf("no endpoint %q", pileUpEndpoint)
	}
	tk, base, err := startServers(ctx, bins, dbURL, cfg, fx, dir, "-pileup")
	if err != nil {
		return nil, err
	}
	defer tk.stop()
	defer base.stop()
	time.Sleep(time.Second)
	res := &pileUpResult{Endpoint: ep.Name, Requests: pileUpRequests}
	res.TKIdle, _, _ = tk.memory()
	res.BaseIdle, _, _ = base.memory()
	for _, s := range []struct {
		p     *proc
		waves *[]int64
	}{{tk, &res.TKWaves}, {base, &res.BaseWaves}} {
		for range pileUpWaves {
			failed, err := pileUp(ctx, s.p, fx, ep)
			if err != nil {
				return nil, err
			}
			res.Failed += failed
			_, hwm, err := s.p.memory()
			if err != nil {
				return nil, err
			}
			*s.waves = append(*s.waves, hwm)
		}
	}
	return res, nil
}

// pileUp stops p, sends it pileUpRequests requests of ep at once, lets it
// go after pileUpStop and waits for every answer. It returns how many
// were not 2xx.
func pileUp(ctx context.Context, p *proc, fx *fixture, ep endpoint) (int, error) {
	client := &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: pileUpRequests, DisableCompression: true},
		Timeout:   time.Minute,
	}
	defer client.CloseIdleConnections()
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return 0, err
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	defer resume()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed int
	)
	next := targeter(fx, ep, p.URL)
	for range pileUpRequests {
		var t vegeta.Target
		if err := next(&t); err != nil {
			return 0, err
		}
		req, err := t.Request()
		if err != nil {
			return 0, err
		}
		wg.Go(func() {
			resp, err := client.Do(req.WithContext(ctx))
			ok := err == nil && resp.StatusCode/100 == 2
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			if !ok {
				mu.Lock()
				failed++
				mu.Unlock()
			}
		})
	}
	time.Sleep(pileUpStop)
	resume()
	wg.Wait()
	return failed, nil
}
