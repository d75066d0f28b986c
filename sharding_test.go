package tenantkit_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// The distribution DDL of docs/operations.md, line by line.
var (
	distributedLine = regexp.MustCompile(`^SELECT create_distributed_table\('([a-z_]+)', 'tenant_id'`)
	referenceLine   = regexp.MustCompile(`^SELECT create_reference_table\('([a-z_]+)'\);$`)
	localLine       = regexp.MustCompile(`^-- local: ([a-z_, ]+) — `)
)

// placement is where docs/operations.md puts each table.
type placement string

const (
	distributed placement = "distributed"
	reference   placement = "reference"
	local       placement = "local"
)

// TestShardingKeys holds the migrated Postgres schema to the rule that
// lets it be sharded by tenant (SPEC §20), and docs/operations.md's
// distribution DDL to the schema: every table placed exactly once; each
// distributed table's NOT NULL tenant_id leading its primary key and its
// unique constraints, its foreign keys to distributed tables including
// it; no reference or local table referring to a distributed one.
func TestShardingKeys(t *testing.T) {
	db := dbtest.Postgres(t)
	ctx := context.Background()
	if _, err := tenantkit.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	placed := ddlPlacements(t)

	var tables []string
	if err := db.NewRaw(`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY 1`).Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		if _, ok := placed[table]; !ok {
			t.Errorf("table %s is not placed in docs/operations.md's distribution DDL", table)
		}
	}
	for table := range placed {
		if !slices.Contains(tables, table) {
			t.Errorf("docs/operations.md places %s, which the schema does not have", table)
		}
	}

	// Each key of a table: its kind (p primary, u unique constraint,
	// i unique index, f foreign key), its columns in order, and for a
	// foreign key the table and columns it refers to.
	var keys []struct {
		Table   string   `bun:"tbl"`
		Kind    string   `bun:"kind"`
		Name    string   `bun:"name"`
		Columns []string `bun:"cols,array"`
		RefTo   string   `bun:"ref_table"`
		RefCols []string `bun:"ref_cols,array"`
	}
	err := db.NewRaw(`
		SELECT c.conrelid::regclass::text AS tbl, c.contype::text AS kind, c.conname::text AS name,
			ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o)
				JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o) AS cols,
			COALESCE(c.confrelid::regclass::text, '') AS ref_table,
			ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, o)
				JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o) AS ref_cols
		FROM pg_constraint c WHERE c.connamespace = current_schema()::regnamespace AND c.contype IN ('p', 'u', 'f')
		UNION ALL
		SELECT x.indrelid::regclass::text, 'i', i.relname::text,
			ARRAY(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(n, o)
				JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n ORDER BY k.o),
			'', ARRAY[]::text[]
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace
		WHERE n.nspname = current_schema() AND x.indisunique AND NOT x.indisprimary
			AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
		ORDER BY 1, 3`).Scan(ctx, &keys)
	if err != nil {
		t.Fatal(err)
	}
	hasPK := map[string]bool{}
	for _, k := range keys {
		from, to := placed[k.Table], placed[k.RefTo]
		switch {
		case k.Kind == "f" && from != distributed && to == distributed:
			t.Errorf("%s table %s refers to distributed %s (%s)", from, k.Table, k.RefTo, k.Name)
		case from != distributed:
		case k.Kind == "f" && to == distributed:
			i := slices.Index(k.Columns, "tenant_id")
			if i < 0 || k.RefCols[i] != "tenant_id" {
				t.Errorf("foreign key %s of %s to %s (%v → %v) does not match tenant_id to tenant_id",
					k.Name, k.Table, k.RefTo, k.Columns, k.RefCols)
			}
		case k.Kind == "f":
		case len(k.Columns) == 0 || k.Columns[0] != "tenant_id":
			t.Errorf("key %s of distributed table %s is %v: it must lead with tenant_id", k.Name, k.Table, k.Columns)
		case k.Kind == "p":
			hasPK[k.Table] = true
		}
	}
	var nullable []string
	if err := db.NewRaw(`SELECT table_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND column_name = 'tenant_id' AND is_nullable = 'NO'`).Scan(ctx, &nullable); err != nil {
		t.Fatal(err)
	}
	for table, p := range placed {
		if p != distributed {
			continue
		}
		if !slices.Contains(nullable, table) {
			t.Errorf("distributed table %s has no NOT NULL tenant_id", table)
		}
		if !hasPK[table] {
			t.Errorf("distributed table %s has no primary key", table)
		}
	}
}

// ddlPlacements reads the distribution DDL of docs/operations.md: each
// table named once, as distributed, reference or local.
func ddlPlacements(t *testing.T) map[string]placement {
	t.Helper()
	doc, err := os.ReadFile("docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	placed := map[string]placement{}
	put := func(table string, p placement) {
		if prev, ok := placed[table]; ok {
			t.Errorf("docs/operations.md places %s twice (%s, %s)", table, prev, p)
		}
		placed[table] = p
	}
	for _, line := range strings.Split(string(doc), "\n") {
		if m := distributedLine.FindStringSubmatch(line); m != nil {
			put(m[1], distributed)
		} else if m := referenceLine.FindStringSubmatch(line); m != nil {
			put(m[1], reference)
		} else if m := localLine.FindStringSubmatch(line); m != nil {
			for _, table := range strings.Split(m[1], ",") {
				put(strings.TrimSpace(table), local)
			}
		}
	}
	if len(placed) == 0 {
		t.Fatal("docs/operations.md has no distribution DDL")
	}
	return placed
}
