package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// clockTick is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// cpuSample is the CPU time spent so far by the processes that share the
// machine during a run: the server under load, the Postgres backends
// serving its connections, this harness (the load generator), and the
// whole machine.
type cpuSample struct {
	Server, Loader time.Duration
	// Postgres is the CPU of each backend of the server's connections.
	Postgres map[int]time.Duration
	// Busy and Total are the machine's non-idle and total CPU time.
	Busy, Total time.Duration
}

// takeCPU samples the CPU of the server with pid and of backends.
func takeCPU(serverPID int, backends []int) cpuSample {
	s := cpuSample{Postgres: map[int]time.Duration{}}
	s.Server = procCPU(strconv.Itoa(serverPID))
	s.Loader = procCPU("self")
	for _, pid := range backends {
		s.Postgres[pid] = procCPU(strconv.Itoa(pid))
	}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		for i, f := range strings.Fields(line)[1:] {
			n, _ := strconv.ParseInt(f, 10, 64)
			d := time.Duration(n) * clockTick
			if i < 8 { // user nice system idle iowait irq softirq steal (guest is inside user)
				s.Total += d
				if i != 3 && i != 4 {
					s.Busy += d
				}
			}
		}
	}
	return s
}

// meter is the harness's own connection to Postgres, to find the backends
// of each server. Its methods are not safe for concurrent use.
type meter struct{ conn *pgx.Conn }

// checkpoint makes Postgres write its dirty buffers now, before a
// latency run rather than during it: the sync that ends a checkpoint
// stalls every writer for a few hundred milliseconds, and the few seconds
// of a tail or fixed-rate run that met one had their p99 decided by it
// (a 137 ms p99 against 11 ms, the slow requests all in the second of a
// checkpoint's sync in the Postgres log). Failure (no superuser) is
// ignored: the runs are then just noisier.
func (m *meter) checkpoint(ctx context.Context) {
	_, _ = m.conn.Exec(ctx, "CHECKPOINT")
}

// backends lists the Postgres backend pids whose connections carry
// application_name app (each server's database URL sets its own), so that
// Postgres CPU is counted only for the server under load and not for the
// other databases of a shared Postgres.
func (m *meter) backends(ctx context.Context, app string) []int {
	if m == nil || app == "" {
		return nil
	}
	var pids []int
	rows, err := m.conn.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", app)
	if err != nil {
		return nil
	}
	defer rows.Close()
	for rows.Next() {
		var pid int32
		if rows.Scan(&pid) == nil {
			pids = append(pids, int(pid))
		}
	}
	return pids
}

// procCPU is utime + stime of /proc/<pid>.
func procCPU(pid string) time.Duration {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * clockTick
}

// cpuUse is the CPU a run cost.
type cpuUse struct {
	Server   time.Duration `json:"server_ns"`
	Postgres time.Duration `json:"postgres_ns"`
	Loader   time.Duration `json:"loader_ns"`
	Busy     time.Duration `json:"machine_busy_ns"`
	Total    time.Duration `json:"machine_total_ns"`
}

// until is the CPU used from a to b; a backend that appeared meanwhile
// counts from 0.
func (a cpuSample) until(b cpuSample) cpuUse {
	u := cpuUse{Server: b.Server - a.Server, Loader: b.Loader - a.Loader, Busy: b.Busy - a.Busy, Total: b.Total - a.Total}
	for pid, t := range b.Postgres {
		u.Postgres += t - a.Postgres[pid]
	}
	return u
}

// other is the share of the machine's CPU used by none of the server, its
// Postgres backends and the load generator: other processes, the noise of
// a shared machine.
func (u cpuUse) other() float64 {
	return ratio(float64(u.Busy-u.Server-u.Postgres-u.Loader), float64(u.Total))
}

func (u cpuUse) add(v cpuUse) cpuUse {
	return cpuUse{Server: u.Server + v.Server, Postgres: u.Postgres + v.Postgres, Loader: u.Loader + v.Loader,
		Busy: u.Busy + v.Busy, Total: u.Total + v.Total}
}
