package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
)

func TestIdempotencyKeyForms(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		post := func(t *testing.T, key, subject string) response {
			t.Helper()
			return e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll,
				body:   `{"subject":"` + subject + `","description":"d"}`,
				header: map[string]string{"X-Tenant-ID": e.acme.ID, "Idempotency-Key": key}})
		}
		const uuid = "8e03978e-40d5-43e8-bc93-6894a57f9324"
		tests := []struct {
			name, key string
			// subject names the request body; a key already used with the
			// same body replays.
			subject      string
			wantStatus   int
			wantReplayed bool
		}{
			// The draft's own example: a Structured Field String.
			{name: "Quoted", key: `"` + uuid + `"`, subject: "a", wantStatus: 201},
			{name: "QuotedAgain", key: `"` + uuid + `"`, subject: "a", wantStatus: 201, wantReplayed: true},
			// The unquoted form, still accepted, is the same key.
			{name: "BareIsSameKey", key: uuid, subject: "a", wantStatus: 201, wantReplayed: true},
			{name: "Bare", key: "order-4711.create:v1", subject: "b", wantStatus: 201},
			{name: "QuotedIsSameKeyAsBare", key: `"order-4711.create:v1"`, subject: "b", wantStatus: 201, wantReplayed: true},
			// Parameters, which the draft defines none of, are ignored.
			{name: "Parameters", key: `"` + uuid + `";v=1;flag;x="y";n=-1.5;b=?0;t=tok/en;s=:AQI=:`, subject: "a", wantStatus: 201, wantReplayed: true},
			{name: "Escapes", key: `"say \"hi\" \\ bye"`, subject: "c", wantStatus: 201},
			{name: "EscapesAgain", key: `"say \"hi\" \\ bye"`, subject: "c", wantStatus: 201, wantReplayed: true},
			{name: "SpacesAndPunctuation", key: `"key with spaces, commas; and (more)"`, subject: "d", wantStatus: 201},
			{name: "LongestKey", key: `"` + strings.Repeat("k", 255) + `"`, subject: "e", wantStatus: 201},

			{name: "TooLong", key: `"` + strings.Repeat("k", 256) + `"`, subject: "f", wantStatus: 400},
			{name: "BareTooLong", key: strings.Repeat("k", 256), subject: "f", wantStatus: 400},
			{name: "Empty", key: `""`, subject: "f", wantStatus: 400},
			{name: "Unterminated", key: `"` + uuid, subject: "f", wantStatus: 400},
			{name: "ControlCharacter", key: "\"a\tb\"", subject: "f", wantStatus: 400},
			{name: "NonASCII", key: `"clé"`, subject: "f", wantStatus: 400},
			{name: "BadEscape", key: `"a\nb"`, subject: "f", wantStatus: 400},
			{name: "TrailingBackslash", key: `"ab\`, subject: "f", wantStatus: 400},
			{name: "AfterTheString", key: `"abc" x`, subject: "f", wantStatus: 400},
			{name: "List", key: `"abc", "def"`, subject: "f", wantStatus: 400},
			{name: "BadParameter", key: `"abc";V=1`, subject: "f", wantStatus: 400},
			{name: "BadParameterValue", key: `"abc";v=1.2345`, subject: "f", wantStatus: 400},
			{name: "BareWithSpace", key: "bad key!", subject: "f", wantStatus: 400},
			{name: "SingleQuoted", key: "'abc'", subject: "f", wantStatus: 400},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := post(t, tt.key, tt.subject)
				if tt.wantStatus == 400 {
					wantProblem(t, r, http.StatusBadRequest, "invalid_request")
					if errs, _ := r.json(t)["errors"].([]any); len(errs) != 1 || errs[0].(map[string]any)["field"] != "Idempotency-Key" {
						t.Errorf("errors = %v, want one naming Idempotency-Key", r.json(t)["errors"])
					}
					return
				}
				if r.status != tt.wantStatus {
					t.Fatalf("status = %d, want %d; %s", r.status, tt.wantStatus, r.body)
				}
				if got := r.header.Get("Idempotent-Replayed") == "true"; got != tt.wantReplayed {
					t.Errorf("replayed = %v, want %v", got, tt.wantReplayed)
				}
			})
		}

		t.Run("TwoHeaders", func(t *testing.T) {
			req, err := http.NewRequest("POST", e.srv.URL+"/api/tickets", strings.NewReader(`{"subject":"g","description":"d"}`))
			check(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+e.keyAll)
			req.Header.Set("X-Tenant-ID", e.acme.ID)
			req.Header.Add("Idempotency-Key", `"one"`)
			req.Header.Add("Idempotency-Key", `"two"`)
			resp, err := e.srv.Client().Do(req)
			check(t, err)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status = %d, want 400", resp.StatusCode)
			}
		})
	})
}

// holdQuery is a Bun query hook that holds the first query starting with
// prefix until released, so that a test can act while the request that
// sent it is half done.
type holdQuery struct {
	prefix  string
	once    sync.Once
	held    chan struct{} // closed when the query is being held
	release chan struct{} // close to let it run
}

func newHoldQuery(prefix string) *holdQuery {
	return &holdQuery{prefix: prefix, held: make(chan struct{}), release: make(chan struct{})}
}

func (h *holdQuery) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if strings.HasPrefix(ev.Query, h.prefix) {
		h.once.Do(func() {
			close(h.held)
			<-h.release
		})
	}
	return ctx
}

func (h *holdQuery) AfterQuery(context.Context, *bun.QueryEvent) {}

func TestIdempotencyRetryWhileRunning(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		// The first request is held just before it stores its response:
		// its ticket is created, its transaction still open.
		hold := newHoldQuery(`INSERT INTO "idempotency_keys"`)
		e.db.AddQueryHook(hold)
		released := false
		releaseFirst := func() {
			if !released {
				released = true
				close(hold.release)
			}
		}
		defer releaseFirst()

		acme := map[string]string{"X-Tenant-ID": e.acme.ID, "Idempotency-Key": `"retry-while-running"`}
		post := request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme,
			body: `{"subject":"once","description":"d"}`}
		first := make(chan response, 1)
		go func() { first <- e.do(t, post) }()
		select {
		case <-hold.held:
		case <-time.After(10 * time.Second):
			t.Fatal("the first request never reached the point where it stores its response")
		}

		retry := make(chan response, 1)
		go func() { retry <- e.do(t, post) }()
		select {
		case r := <-retry:
			wantProblem(t, r, http.StatusConflict, "conflict")
		case <-time.After(3 * time.Second):
			releaseFirst()
			r := <-retry
			<-first
			t.Fatalf("the retry waited for the first request (then answered %d) instead of a 409 at once", r.status)
		}

		releaseFirst()
		r := <-first
		if r.status != http.StatusCreated || r.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("first: %d replayed=%q; %s", r.status, r.header.Get("Idempotent-Replayed"), r.body)
		}
		again := e.do(t, post)
		if again.status != http.StatusCreated || again.header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(r.body) {
			t.Fatalf("retry after the first finished: %d replayed=%q; %s", again.status, again.header.Get("Idempotent-Replayed"), again.body)
		}
		list := e.do(t, request{method: "GET", path: "/api/tickets", bearer: e.keyAll, header: map[string]string{"X-Tenant-ID": e.acme.ID}})
		if n := len(list.json(t)["data"].([]any)); n != 1 {
			t.Fatalf("tickets = %d, want 1", n)
		}
	})
}
