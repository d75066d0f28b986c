package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// The public groups: the catalog and the health checks, which need no
// credential (rate limited per client IP).

// publicEndpoints are the catalog and health groups' rows of the route
// table.
func (a *API) publicEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/catalog/public", Group: GroupCatalog, Public: true, Handle: a.publicCatalog},
		{Method: "GET", Path: "/api/health", Group: GroupHealth, Public: true, Handle: a.health},
		{Method: "GET", Path: "/api/health/ready", Group: GroupHealth, Public: true, Handle: a.ready},
		{Method: "GET", Path: "/api/health/live", Group: GroupHealth, Public: true, Handle: a.live},
	}
}

// publicCatalog answers GET /api/catalog/public with the catalog's
// canonical JSON, a strong ETag and a short public cache lifetime; a
// matching If-None-Match gets 304.
func (a *API) publicCatalog(w http.ResponseWriter, r *http.Request) error {
	etag := `"` + a.cfg.Services.Catalog.Digest() + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age=300")
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(a.cfg.Services.Catalog.JSON())
	return nil
}

// etagMatches implements If-None-Match's weak comparison over a list.
func etagMatches(header, etag string) bool {
	for _, candidate := range strings.Split(header, ",") {
		candidate = strings.TrimPrefix(strings.TrimSpace(candidate), "W/")
		if candidate == "*" || candidate == etag {
			return true
		}
	}
	return false
}

// healthResponse is the body of the health endpoints.
type healthResponse struct {
	Status  string `json:"status"`
	Version string `json:"version,omitempty"`
}

// health answers GET /api/health: the process serves HTTP.
func (a *API) health(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, http.StatusOK, healthResponse{Status: "ok", Version: a.cfg.Version})
	return nil
}

// live answers GET /api/health/live: the process is not wedged. It checks
// nothing external, so that an orchestrator never restarts a healthy
// process because its database is down.
func (a *API) live(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, http.StatusOK, healthResponse{Status: "ok"})
	return nil
}

// ready answers GET /api/health/ready: 200 while the database answers and
// its schema is current, else 503 not_ready. It checks on every call, so it
// recovers by itself as soon as the database does.
func (a *API) ready(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	if a.cfg.Services.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := a.cfg.Services.Ready(ctx); err != nil {
			return NewProblem(http.StatusServiceUnavailable, CodeNotReady, err.Error())
		}
	}
	WriteJSON(w, http.StatusOK, healthResponse{Status: "ok"})
	return nil
}
