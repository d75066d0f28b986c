package main

import (
	"encoding/base64"
	"os"
	"strings"
	"testing"
)

// TestMain gives every command the tests run a secret key in the
// environment, so that no test leaves a key file in the package's folder
// (TestLoadOrCreateKey checks the file in a temporary one).
// testSecretKey is the secret key of the servers the tests run.
var testSecretKey = base64.StdEncoding.EncodeToString([]byte(strings.Repeat("t", 32)))

func TestMain(m *testing.M) {
	if _, ok := os.LookupEnv("TENANTKIT_SECRET_KEY"); !ok {
		os.Setenv("TENANTKIT_SECRET_KEY", testSecretKey)
	}
	os.Exit(m.Run())
}
