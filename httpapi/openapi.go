package httpapi

import (
	"crypto/sha256"
	_ "embed" // for the OpenAPI document
	"encoding/hex"
	"io"
	"net/http"
)

// openAPIDocument is the OpenAPI 3.0 description of every endpoint of the
// route table, kept beside the code it describes. The tests validate every
// request they send and every response they receive against it, so the
// two cannot drift apart. A string, so that nothing can modify it.
//
//go:embed openapi.json
var openAPIDocument string

// OpenAPIDocument returns the OpenAPI 3.0 document of the API, as served
// at GET /api/openapi.json: for generating clients, contract tests or a
// host's own documentation. The caller owns the returned slice.
func OpenAPIDocument() []byte { return []byte(openAPIDocument) }

// docsEndpoints are the documentation group's rows of the route table.
func docsEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/openapi.json", Group: GroupDocs, Public: true, Handle: openAPIHandler()},
	}
}

// openAPIHandler answers GET /api/openapi.json with the embedded document,
// a strong ETag computed once and a short public cache lifetime; a
// matching If-None-Match gets 304, like the catalog.
func openAPIHandler() HandlerFunc {
	sum := sha256.Sum256([]byte(openAPIDocument))
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	return func(w http.ResponseWriter, r *http.Request) error {
		h := w.Header()
		h.Set("ETag", etag)
		h.Set("Cache-Control", "public, max-age=300")
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		h.Set("Content-Type", "application/json; charset=utf-8")
		_, _ = io.WriteString(w, openAPIDocument)
		return nil
	}
}
