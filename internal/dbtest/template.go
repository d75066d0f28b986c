package dbtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// A Postgres test database migrated with some sources is a copy of a
// template database (CREATE DATABASE … TEMPLATE), migrated once, migration
// by migration, per schema: creating a database from a template takes a
// fraction of the time of applying some forty migrations and River's, and
// the suites create one per test. The template's name is a hash of the
// migrations' files and River's version, so a schema change makes a new
// one; one process builds it under a name of its own and renames it into
// place, so processes that race build it twice at worst and never share a
// half-migrated one.

// templates holds the templates this process made sure of, by name.
var templates sync.Map // name → *sync.Once-guarded result

type templateResult struct {
	once sync.Once
	err  error
}

// fromTemplate creates a database for this test from the template of
// sources, drops it when the test ends, and returns its URL.
func fromTemplate(tb testing.TB, sources []database.Source) string {
	tb.Helper()
	base, err := serverURL()
	if err != nil {
		return PostgresURL(tb) // skips or fails as PostgresURL says
	}
	name, err := templateName(sources)
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	v, _ := templates.LoadOrStore(name, &templateResult{})
	r := v.(*templateResult)
	r.once.Do(func() { r.err = ensureTemplate(base, name, sources) })
	if r.err != nil {
		tb.Fatalf("dbtest: template %s: %v", name, r.err)
	}
	db := "tk_test_" + randomHex(6)
	ctx := context.Background()
	if err := adminExec(ctx, base, "CREATE DATABASE "+db+" TEMPLATE "+name); err != nil {
		tb.Fatalf("dbtest: create database from %s: %v", name, err)
	}
	tb.Cleanup(func() {
		if err := adminExec(context.Background(), base, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)"); err != nil {
			tb.Logf("dbtest: drop database %s: %v", db, err)
		}
	})
	return clientURL(tb, base, db)
}

// templateName is "tk_tpl_" and a hash of the Postgres migrations of
// sources and River's version.
func templateName(sources []database.Source) (string, error) {
	h := sha256.New()
	for _, src := range sources {
		err := fs.WalkDir(src, "postgres", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(src, path)
			fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
			h.Write(b)
			return err
		})
		if err != nil {
			return "", err
		}
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/riverqueue/river" {
				fmt.Fprintf(h, "river %s", m.Version)
			}
		}
	}
	return "tk_tpl_" + hex.EncodeToString(h.Sum(nil))[:20], nil
}

// ensureTemplate makes template name exist on the server of base: migrated
// with sources and River's tables, nobody connected to it.
func ensureTemplate(base, name string, sources []database.Source) error {
	ctx := context.Background()
	if exists, err := databaseExists(ctx, base, name); err != nil || exists {
		return err
	}
	building := "tk_tplb_" + randomHex(6)
	if err := adminExec(ctx, base, "CREATE DATABASE "+building); err != nil {
		return err
	}
	drop := func() { _ = adminExec(ctx, base, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)") }
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return err
	}
	u.Path = "/" + building
	db, err := database.Open(ctx, u.String(), database.Options{MaxConns: 2})
	if err != nil {
		drop()
		return err
	}
	_, err = database.MigrateWith(ctx, db, "", sources, riverqueue.Migrate)
	_ = db.Close()
	if err != nil {
		drop()
		return err
	}
	if err := adminExec(ctx, base, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		drop()
		// Another process renamed its own into place first: use that one.
		if exists, xerr := databaseExists(ctx, base, name); xerr == nil && exists {
			return nil
		}
		return err
	}
	return nil
}

// databaseExists reports whether the server of base has database name.
func databaseExists(ctx context.Context, base, name string) (bool, error) {
	var n int
	err := adminQueryRow(ctx, base, "SELECT count(*) FROM pg_database WHERE datname = $1", []any{name}, &n)
	return n > 0, err
}
