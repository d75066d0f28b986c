package client_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestGeneratedClientsAreCurrent runs the go:generate command of each
// client's generate.go (this package's and the operator API's,
// ../operatorapi/client) with its output sent to a temporary directory and
// fails when the result differs from the checked-in client.gen.go: after a
// change to httpapi/openapi.json, an oapi-codegen.yaml or the template
// (client-with-responses.tmpl here, which both use), run go generate. It
// skips in -short mode and when the go command cannot fetch oapi-codegen
// (offline, no module proxy).
func TestGeneratedClientsAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs oapi-codegen (go run): skipped in -short mode")
	}
	for dir, pkg := range map[string]string{".": "./httpapi/client", "../operatorapi/client": "./httpapi/operatorapi/client"} {
		t.Run(pkg, func(t *testing.T) { checkGenerated(t, dir, pkg) })
	}
}

// checkGenerated regenerates the client in dir and compares it with the
// checked-in one.
func checkGenerated(t *testing.T, dir, pkg string) {
	args := mustGenerateCommand(t, filepath.Join(dir, "generate.go"))
	config, err := os.ReadFile(filepath.Join(dir, "oapi-codegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const output = "\noutput: client.gen.go\n"
	if !bytes.Contains(config, []byte(output)) {
		t.Fatalf("oapi-codegen.yaml does not say %q", strings.TrimSpace(output))
	}
	tmp := t.TempDir()
	generated := filepath.Join(tmp, "client.gen.go")
	config = bytes.Replace(config, []byte(output), []byte("\noutput: "+generated+"\n"), 1)
	configPath := filepath.Join(tmp, "oapi-codegen.yaml")
	if err := os.WriteFile(configPath, config, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, arg := range args {
		if arg == "oapi-codegen.yaml" {
			args[i] = configPath
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir // the document's and the template's paths are relative to it
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || fetchFailed(stderr.String()) {
			t.Skipf("cannot run oapi-codegen: %v\n%s", err, stderr.String())
		}
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	got, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "client.gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("client.gen.go is stale (%d lines generated, %d checked in): run go generate %s",
			bytes.Count(got, []byte("\n")), bytes.Count(want, []byte("\n")), pkg)
	}
}

// mustGenerateCommand returns the command of the go:generate directive in
// the file at path, split into words.
func mustGenerateCommand(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for s := bufio.NewScanner(f); s.Scan(); {
		if cmd, ok := strings.CutPrefix(s.Text(), "//go:generate "); ok {
			return strings.Fields(cmd)
		}
	}
	t.Fatalf("%s has no go:generate directive", path)
	return nil
}

// fetchFailed reports whether the go command's stderr says it could not
// get a module (its own errors start with "go: "; oapi-codegen's do not).
func fetchFailed(stderr string) bool {
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "go: ") && !strings.HasPrefix(line, "go: downloading ") {
			return true
		}
	}
	return false
}

// TestGeneratedConfigMatchesClient checks that the operator client's
// oapi-codegen.yaml, its comments left out, is this one's but for the
// operations it takes (include-tags instead of exclude-tags) and the
// template's path: the two clients are generated alike.
func TestGeneratedConfigMatchesClient(t *testing.T) {
	ours, theirs := mustConfigLines(t, "../operatorapi/client/oapi-codegen.yaml"), mustConfigLines(t, "oapi-codegen.yaml")
	swap := strings.NewReplacer(
		"include-tags:", "exclude-tags:",
		"client-with-responses.tmpl: ../../client/client-with-responses.tmpl", "client-with-responses.tmpl: client-with-responses.tmpl",
	)
	for i := range ours {
		ours[i] = swap.Replace(ours[i])
	}
	if !slices.Equal(ours, theirs) {
		t.Fatalf("../operatorapi/client/oapi-codegen.yaml differs from oapi-codegen.yaml beyond include-tags and the template's path:\n%s\n---\n%s",
			strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
	}
}

// mustConfigLines returns the lines of the YAML file at path that are not
// blank or comments.
func mustConfigLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for line := range strings.Lines(string(b)) {
		if line = strings.TrimRight(line, "\n"); strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			lines = append(lines, line)
		}
	}
	return lines
}
