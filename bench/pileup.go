package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
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
	resume := func() { _ = p.cmd.Process.Signal(syscall.SIGCONT) } // a second SIGCONT does nothing
	defer resume()
	var (
		wg     sync.WaitGroup
		failed atomic.Int32
	)
	for range pileUpRequests {
		req, err := request(ctx, p, fx, ep)
		if err != nil {
			return 0, err
		}
		wg.Go(func() {
			resp, err := client.Do(req)
			if err != nil {
				failed.Add(1)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				failed.Add(1)
			}
		})
	}
	time.Sleep(pileUpStop)
	resume()
	wg.Wait()
	return int(failed.Load()), nil
}
