package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The bench is its own module: it must find itself and, through its
// go.mod's replace, the library tree above it that holds cmd/server.
func TestFindSources(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	src, err := findSources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, got, want string
	}{
		{"bench", src.Bench, wd},
		{"library", src.Library, filepath.Dir(wd)},
	} {
		if filepath.Clean(tc.got) != filepath.Clean(tc.want) {
			t.Errorf("%s dir = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	for _, f := range []string{
		filepath.Join(src.Library, "cmd", "server"),
		filepath.Join(src.Bench, "baseline"),
	} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("build source missing: %v", err)
		}
	}
}
