// Command webhookhost is a host app that receives its payment provider's
// webhook on its own route and hands it to tenantkit: verify the signature
// over the raw body, then record and apply the event exactly once. It
// keeps its data in SQLite (./host.db), verifies with the secret of
// TENANTKIT_WEBHOOK_SECRET (a new one, printed, when unset) and prints
// where it listens:
//
//	go run ./examples/webhookhost                    # http://127.0.0.1:8082/hooks/payments
//	TENANTKIT_WEBHOOK_SECRET=whsec_… go run ./examples/webhookhost -addr :9002 -db /tmp/host.db
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
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
func newHost(ctx context.Context, db *bun.DB, secrets []string) (http.Handler, *tenantkit.App, error) {
	if _, err := tenantkit.Migrate(ctx, db); err != nil {
		return nil, nil, err
	}
	app, err := tenantkit.New(db, catalog.Default())
	if err != nil {
		return nil, nil, err
	}
	v, err := webhook.NewVerifier(webhook.SchemeStandard, secrets)
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /hooks/payments", paymentsHandler(v, app.Webhooks))
	return mux, app, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run serves the host app as the command line says until ctx ends.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("webhookhost", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8082", "listen address")
	file := fs.String("db", "host.db", "SQLite file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	secrets, signWith := strings.Split(os.Getenv("TENANTKIT_WEBHOOK_SECRET"), ","), `"$TENANTKIT_WEBHOOK_SECRET"`
	if secrets[0] == "" {
		b := make([]byte, 24)
		_, _ = rand.Read(b)
		secrets = []string{"whsec_" + base64.StdEncoding.EncodeToString(b)}
		signWith = secrets[0]
		fmt.Fprintf(out, "webhookhost: no TENANTKIT_WEBHOOK_SECRET, so this run verifies with %s\n", secrets[0])
	}
	sqldb, err := sql.Open("sqlite", "file:"+*file+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		return err
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	host, _, err := newHost(ctx, db, secrets)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "webhookhost: payment webhook at http://%s/hooks/payments; sign a test event with\n"+
		"  go run ./cmd/server webhook sign --secret %s --file event.json\n", ln.Addr(), signWith)
	srv := &http.Server{Handler: host, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
