package dbtest

import "testing"

// TestClientURL: a test's database is reached at the server's URL, or
// through the pooler of EnvPoolerURL with its query, the path its name.
func TestClientURL(t *testing.T) {
	const server = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	tests := []struct {
		name, pooler, want string
	}{
		{"Server", "", "postgres://postgres@127.0.0.1:5432/tk_test_1?sslmode=disable"},
		{"Pooler", "postgres://postgres@127.0.0.1:6432/postgres?sslmode=disable&default_query_exec_mode=simple_protocol",
			"postgres://postgres@127.0.0.1:6432/tk_test_1?sslmode=disable&default_query_exec_mode=simple_protocol"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvPoolerURL, tt.pooler)
			t.Setenv(EnvRequirePooler, "")
			if got := clientURL(t, server, "tk_test_1"); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
