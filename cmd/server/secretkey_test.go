package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadOrCreateKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.key")
	key, created, err := loadOrCreateKey(path)
	if err != nil || !created || len(key) != 32 {
		t.Fatalf("first load = %d bytes, created %v, %v", len(key), created, err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v, %v; want 0600", info.Mode().Perm(), err)
	}
	again, created, err := loadOrCreateKey(path)
	if err != nil || created || string(again) != string(key) {
		t.Fatalf("second load: created %v, same key %v, %v", created, string(again) == string(key), err)
	}
	if err := os.WriteFile(path, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadOrCreateKey(path); err == nil {
		t.Fatalf("a bad key file loaded")
	}
}

func TestDecodeKey(t *testing.T) {
	good := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	if _, err := decodeKey(good + "\n"); err != nil {
		t.Fatalf("decodeKey(good) = %v", err)
	}
	for _, bad := range []string{"", "not base64!", base64.StdEncoding.EncodeToString([]byte("16 bytes only..."))} {
		if _, err := decodeKey(bad); err == nil {
			t.Errorf("decodeKey(%q) = nil error", bad)
		}
	}
}
