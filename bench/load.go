package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// loadSpec is how hard one run pushes.
type loadSpec struct {
	// Concurrency is the number of requests in flight when Rate is 0
	// (closed loop: the next request goes as soon as one answers).
	Concurrency int
	// Rate, when set, sends that many requests per second whatever the
	// answers take (open loop), as real clients do.
	Rate     int
	Duration time.Duration
}

// runLoad drives ep on p for spec.Duration with vegeta and measures
// throughput, latencies and p's peak RSS meanwhile.
func runLoad(ctx context.Context, p *proc, fx *fixture, ep endpoint, spec loadSpec) runResult {
	workers := uint64(spec.Concurrency)
	maxWorkers := workers
	var pacer vegeta.Pacer = vegeta.ConstantPacer{} // zero: as fast as the workers go
	if spec.Rate > 0 {
		pacer = vegeta.ConstantPacer{Freq: spec.Rate, Per: time.Second}
		maxWorkers = 1024
	}
	// The run's connections are closed when it ends. vegeta keeps them
	// in its client's pool, never closed, and a server holds an idle
	// one until its idle timeout (tenantkit: two minutes; the baseline:
	// never): every earlier run's connections stayed open on the server
	// under load. By the sixth fixed-rate run tenantkit held 1,100 of
	// them, idle, and its RSS had grown from 60 to 72 MB with them (the
	// baseline's from 35 to 44 MB); each collection also scanned their
	// goroutines.
	tr := &http.Transport{DialContext: (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext}
	defer tr.CloseIdleConnections()
	atk := vegeta.NewAttacker(vegeta.Client(&http.Client{Transport: tr}),
		vegeta.Workers(workers), vegeta.MaxWorkers(maxWorkers), vegeta.Connections(int(maxWorkers)),
		vegeta.KeepAlive(true), vegeta.Timeout(30*time.Second), vegeta.Redirects(vegeta.NoFollow),
		vegeta.MaxBody(512), // enough to see an error; the rest is read and discarded
	)
	stopAttack := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stopAttack()

	stopRSS := make(chan struct{})
	peak := p.sampleRSS(stopRSS)
	res := runResult{Server: p.Name, Endpoint: ep.Name, Rate: spec.Rate, Codes: map[int]int{}}
	lat := make([]time.Duration, 0, 1<<15)
	cpu0 := takeCPU(p.pid(), fx.meter.backends(ctx, p.App))
	start := time.Now()
	for r := range atk.Attack(targeter(fx, ep, p.URL), pacer, spec.Duration, ep.Name) {
		res.Codes[int(r.Code)]++
		if r.Code >= 200 && r.Code < 300 {
			res.OK++
			lat = append(lat, r.Latency)
			continue
		}
		res.Failed++
		if res.FirstError == "" {
			res.FirstError = strings.TrimSpace(fmt.Sprintf("%d %s %s", r.Code, r.Error, tail(string(r.Body), 300)))
		}
	}
	res.Elapsed = time.Since(start)
	res.CPU = cpu0.until(takeCPU(p.pid(), fx.meter.backends(ctx, p.App)))
	close(stopRSS)
	res.PeakRSS = <-peak
	slices.Sort(lat)
	res.latencies = lat
	return res
}

// request is one request of ep to p, as the load runs send it.
func request(ctx context.Context, p *proc, fx *fixture, ep endpoint) (*http.Request, error) {
	var t vegeta.Target
	if err := targeter(fx, ep, p.URL)(&t); err != nil {
		return nil, err
	}
	req, err := t.Request()
	if err != nil {
		return nil, err
	}
	return req.WithContext(ctx), nil
}

// probe sends one request of ep to p and returns its status and body.
func probe(ctx context.Context, p *proc, fx *fixture, ep endpoint) (int, string, error) {
	req, err := request(ctx, p, fx, ep)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, string(body), nil
}
