package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgCluster is a private Postgres server for one test, in a temporary
// directory with its own port and socket directory, so that the test may
// crash and restart it without touching the Postgres other tests share.
type pgCluster struct {
	binDir string // where initdb, pg_ctl and postgres are
	dir    string // the temporary directory: data/, sock/, log
	port   int
	// runAs is the account the Postgres programs run as: they refuse to
	// run as root, so a root test runs them as "postgres".
	runAs string
}

// mustStartPGCluster creates a cluster with initdb (trust authentication,
// fsync off: the tests crash Postgres, never the machine, so committed
// data is in the OS page cache either way), starts it, and stops it and
// removes its files when the test ends.
func mustStartPGCluster(tb testing.TB) *pgCluster {
	tb.Helper()
	c := &pgCluster{binDir: mustFindPGBin(tb)}
	dir, err := os.MkdirTemp("", "tenantkit-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	c.dir = dir
	tb.Cleanup(func() {
		_ = c.pgCtl("stop", "-m", "immediate")
		if err := os.RemoveAll(dir); err != nil {
			tb.Logf("remove %s: %v", dir, err)
		}
	})
	if os.Geteuid() == 0 {
		// The temporary directory's parent may be closed to others, so the
		// cluster lives in its own directory under /tmp (os.MkdirTemp), given
		// to the postgres account.
		u, err := user.Lookup("postgres")
		if err != nil {
			tb.Fatalf("running as root, Postgres needs the postgres account: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			tb.Fatal(err)
		}
		c.runAs = "postgres"
	}
	if out, err := c.command("initdb", "-D", c.dataDir(), "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--no-sync", "--no-instructions").CombinedOutput(); err != nil {
		tb.Fatalf("initdb: %v\n%s", err, out)
	}
	if out, err := c.command("mkdir", c.sockDir()).CombinedOutput(); err != nil {
		tb.Fatalf("mkdir %s: %v\n%s", c.sockDir(), err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	c.mustStart(tb)
	return c
}

// mustFindPGBin returns the directory of the newest installed Postgres
// server programs.
func mustFindPGBin(tb testing.TB) string {
	tb.Helper()
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	slices.SortFunc(found, func(a, b string) int { return pgMajor(b) - pgMajor(a) })
	if len(found) > 0 {
		return filepath.Dir(found[0])
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p)
	}
	tb.Fatal("no Postgres server programs (pg_ctl, initdb) found in /usr/lib/postgresql/*/bin or on PATH: install postgresql")
	return ""
}

// pgMajor is the major version in a path like /usr/lib/postgresql/16/bin/pg_ctl.
func pgMajor(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

func (c *pgCluster) dataDir() string { return filepath.Join(c.dir, "data") }
func (c *pgCluster) sockDir() string { return filepath.Join(c.dir, "sock") }

// URL is the cluster's database "postgres" over TCP.
func (c *pgCluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=5", c.port)
}

// command prepares one Postgres program (or a plain command) to run as
// the cluster's account, in its directory.
func (c *pgCluster) command(name string, args ...string) *exec.Cmd {
	if _, err := os.Stat(filepath.Join(c.binDir, name)); err == nil {
		name = filepath.Join(c.binDir, name)
	}
	var cmd *exec.Cmd
	if c.runAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.runAs, "--", name}, args...)...)
	} else {
		cmd = exec.Command(name, args...)
	}
	cmd.Dir = c.dir
	return cmd
}

// pgCtl runs pg_ctl with args on the cluster and waits for it.
func (c *pgCluster) pgCtl(args ...string) error {
	full := append([]string{"-D", c.dataDir(), "-w", "-t", "60"}, args...)
	if out, err := c.command("pg_ctl", full...).CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// mustStart starts the server and waits until it accepts connections.
func (c *pgCluster) mustStart(tb testing.TB) {
	tb.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100 -c shared_buffers=32MB",
		c.port, c.sockDir())
	if err := c.pgCtl("start", "-l", filepath.Join(c.dir, "log"), "-o", opts); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		tb.Fatalf("%v\nserver log:\n%s", err, log)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, c.URL())
		if err == nil {
			conn.Close(ctx)
			return
		}
		if ctx.Err() != nil {
			tb.Fatalf("Postgres on port %d does not answer: %v", c.port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// mustCrash stops the server with pg_ctl -m immediate: every backend is
// killed at once, nothing is checkpointed, and the next start recovers
// from the WAL, as after a crash.
func (c *pgCluster) mustCrash(tb testing.TB) {
	tb.Helper()
	if err := c.pgCtl("stop", "-m", "immediate"); err != nil {
		tb.Fatal(err)
	}
}
