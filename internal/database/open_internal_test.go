package database

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPgxConfigExecMode: pgx runs Bun's statements with the simple protocol
// unless the URL chooses otherwise, so that nothing is prepared on a server
// connection that a transaction-mode pooler hands to another client next
// (docs/operations.md, "Behind a connection pooler").
func TestPgxConfigExecMode(t *testing.T) {
	const base = "postgres://u@127.0.0.1:6432/db?sslmode=disable"
	tests := []struct {
		name, url string
		want      pgx.QueryExecMode
	}{
		{"Default", base, pgx.QueryExecModeSimpleProtocol},
		{"SimpleProtocol", base + "&default_query_exec_mode=simple_protocol", pgx.QueryExecModeSimpleProtocol},
		{"URLChoiceKept", base + "&default_query_exec_mode=cache_statement", pgx.QueryExecModeCacheStatement},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := pgxConfig(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.DefaultQueryExecMode; got != tt.want {
				t.Errorf("exec mode: got %v, want %v", got, tt.want)
			}
		})
	}
}
