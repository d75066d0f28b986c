package database

import (
	"fmt"
	"testing"
)

func TestIntern(t *testing.T) {
	q := []byte(`SELECT "t"."id" FROM "things" AS "t" WHERE (tenant_id = $1)`)
	first := intern(q)
	if first != string(q) {
		t.Fatalf("intern = %q, want %q", first, q)
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = intern(q) }); allocs != 0 {
		t.Errorf("intern of a known text: %v allocations, want 0", allocs)
	}
	if got, want := statementName(first), nameOf(q); got != want || len(got) != len("tk_")+24 {
		t.Errorf("statementName = %q, want %q (tk_ and 24 hex digits)", got, want)
	}
	if got := statementName("SELECT 1 -- never interned"); got != nameOf([]byte("SELECT 1 -- never interned")) {
		t.Errorf("statementName of an unknown text = %q, want its hash", got)
	}
}

// TestInternBounded: past maxTexts, texts are made into strings as they
// come, right but not kept.
func TestInternBounded(t *testing.T) {
	texts.Lock()
	kept := texts.m
	texts.m = make(map[string]*text)
	texts.Unlock()
	t.Cleanup(func() { texts.Lock(); texts.m = kept; texts.Unlock() })
	for i := 0; len(texts.m) < maxTexts; i++ {
		intern(fmt.Appendf(nil, "SELECT %d -- filler", i))
	}
	q := []byte("SELECT 'past the bound'")
	if got := intern(q); got != string(q) {
		t.Fatalf("intern past the bound = %q, want %q", got, q)
	}
	if len(texts.m) != maxTexts {
		t.Fatalf("%d texts kept, want at most %d", len(texts.m), maxTexts)
	}
	if got := statementName(string(q)); got != nameOf(q) {
		t.Errorf("statementName past the bound = %q, want %q", got, nameOf(q))
	}
}
