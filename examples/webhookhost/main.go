// Command webhookhost is a host app that receives its payment provider's
// webhook on its own route and hands it to tenantkit: verify the signature
// over the raw body, then record and apply the event exactly once.
//
//	TENANTKIT_WEBHOOK_SECRET=whsec_… go run ./examples/webhookhost
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/webhook"
)

// paymentsHandler verifies and handles payment events. The host decides
// the route, the body limit and what it logs; tenantkit decides whether the
// event is genuine and what it changes.
func paymentsHandler(v webhook.Verifier, events *webhook.Service) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, webhook.MaxPayloadBytes))
		if err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if err := v.Verify(r.Header, body); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized) // nothing parsed, nothing stored
			return
		}
		res, err := events.Handle(r.Context(), body)
		switch {
		case errors.Is(err, webhook.ErrMalformed):
			http.Error(w, "not a payment event", http.StatusBadRequest)
		case err != nil:
			log.Printf("payment webhook: %v", err)
			http.Error(w, "try again", http.StatusServiceUnavailable) // nothing half done: the retry will work
		default:
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"outcome": res.Outcome, "duplicate": res.Duplicate})
		}
	})
}

// newHost wires tenantkit's services on the host's database and mounts the
// webhook on the host's route.
func newHost(ctx context.Context, db *bun.DB, secrets []string) (http.Handler, httpapi.Config, error) {
	if _, err := httpapi.Migrate(ctx, db); err != nil {
		return nil, httpapi.Config{}, err
	}
	cfg := httpapi.NewConfig(db, catalog.Default())
	v, err := webhook.NewVerifier(webhook.SchemeStandard, secrets)
	if err != nil {
		return nil, httpapi.Config{}, err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /hooks/payments", paymentsHandler(v, cfg.Webhooks))
	return mux, cfg, nil
}

func main() {
	sqldb, err := sql.Open("sqlite", "file:host.db?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		log.Fatal(err)
	}
	host, _, err := newHost(context.Background(), bun.NewDB(sqldb, sqlitedialect.New()),
		strings.Split(os.Getenv("TENANTKIT_WEBHOOK_SECRET"), ","))
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe(":8082", host))
}
