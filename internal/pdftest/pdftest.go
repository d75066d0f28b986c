// Package pdftest reads the text of PDFs in tests, with pdftotext from
// poppler-utils: a reader nobody on the project wrote.
package pdftest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Text extracts the PDF's text with pdftotext, keeping the layout.
// Without pdftotext the test is skipped, unless
// TENANTKIT_REQUIRE_POPPLER=1 (CI) makes that a failure.
func Text(t testing.TB, pdf []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("TENANTKIT_REQUIRE_POPPLER") == "1" {
			t.Fatal("pdftotext not found and TENANTKIT_REQUIRE_POPPLER=1: install poppler-utils")
		}
		t.Skip("pdftotext not found: install poppler-utils to check the PDF's text (TENANTKIT_REQUIRE_POPPLER=1 makes this a failure)")
	}
	path := filepath.Join(t.TempDir(), "invoice.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-layout", "-enc", "UTF-8", path, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v: %s", err, out)
	}
	return string(out)
}
