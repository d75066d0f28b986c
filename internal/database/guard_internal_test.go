package database

import "testing"

func TestTenantGuardCheck(t *testing.T) {
	g := &TenantGuard{tables: map[string]bool{"invoices": true, "tickets": true}}
	tests := []struct {
		name, query string
		ok          bool
	}{
		{"Filtered", `SELECT "i"."id" FROM "invoices" AS "i" WHERE (tenant_id = 'ten_1') AND (id = 'inv_1')`, true},
		{"Unfiltered", `SELECT "i"."id" FROM "invoices" AS "i" WHERE (id = 'inv_1')`, false},
		{"FilterOnAValueNotATenant", `SELECT * FROM "invoices" WHERE (a.tenant_id = b.tenant_id)`, false},
		{"JoinOneFilter", `SELECT * FROM "invoices" AS "i" JOIN "tickets" AS "t" ON t.id = i.id WHERE ("i".tenant_id = 'x')`, false},
		{"JoinBothFiltered", `SELECT * FROM "invoices" AS "i" JOIN "tickets" AS "t" ON t.id = i.id WHERE ("i".tenant_id = 'x') AND ("t".tenant_id = 'x')`, true},
		{"UpdateUnfiltered", `UPDATE "invoices" AS "i" SET "memo" = 'x' WHERE (id = 'inv_1')`, false},
		{"DeleteFiltered", `DELETE FROM "tickets" AS "t" WHERE (tenant_id = 'ten_1')`, true},
		{"InsertWithTenant", `INSERT INTO "invoices" ("tenant_id", "id") VALUES ('ten_1', 'inv_1')`, true},
		{"InsertWithoutTenant", `INSERT INTO "invoices" ("id") VALUES ('inv_1')`, false},
		{"UnionParts", `(SELECT * FROM "invoices" WHERE (tenant_id = 'a')) UNION ALL (SELECT * FROM "tickets")`, false},
		{"AcrossTenants", `/* across tenants */ SELECT * FROM "invoices" WHERE (due < now())`, true},
		{"OtherTable", `SELECT * FROM "users" WHERE (id = 'u')`, true},
		{"DDL", `CREATE TABLE invoices (id TEXT)`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := g.check(tt.query) == ""; got != tt.ok {
				t.Errorf("check(%s) passes = %v, want %v", tt.query, got, tt.ok)
			}
		})
	}
}
