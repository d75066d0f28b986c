package bunstore_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/httpapi/bunstore"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

var _ httpapi.IdempotencyStore = (*bunstore.Store)(nil)

func TestStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := bunstore.New(db)
		scope := httpapi.IdempotencyScope{TenantID: "ten_a", Credential: "key:k", Key: "k1"}
		calls := 0
		created := func(ctx context.Context) (httpapi.StoredResponse, error) {
			calls++
			return httpapi.StoredResponse{Status: 201, ContentType: "application/json", Location: "/x/1", Body: []byte(`{"id":1}`)}, nil
		}

		resp, replayed, err := s.Do(ctx, scope, "h1", time.Hour, created)
		if err != nil || replayed || resp.Status != 201 || calls != 1 {
			t.Fatalf("first = %+v %v %v calls %d", resp, replayed, err, calls)
		}
		resp, replayed, err = s.Do(ctx, scope, "h1", time.Hour, created)
		if err != nil || !replayed || resp.Status != 201 || string(resp.Body) != `{"id":1}` || resp.Location != "/x/1" || calls != 1 {
			t.Fatalf("replay = %+v %v %v calls %d", resp, replayed, err, calls)
		}
		if _, _, err := s.Do(ctx, scope, "h2", time.Hour, created); !errors.Is(err, httpapi.ErrIdempotencyKeyReused) {
			t.Fatalf("other body: %v", err)
		}
		other := scope
		other.Credential = "key:other"
		if _, replayed, err := s.Do(ctx, other, "h2", time.Hour, created); err != nil || replayed || calls != 2 {
			t.Fatalf("other credential: replayed %v err %v calls %d", replayed, err, calls)
		}

		t.Run("FailureFreesTheKey", func(t *testing.T) {
			sc := scope
			sc.Key = "k-fail"
			boom := errors.New("boom")
			if _, _, err := s.Do(ctx, sc, "h", time.Hour, func(context.Context) (httpapi.StoredResponse, error) {
				return httpapi.StoredResponse{}, boom
			}); !errors.Is(err, boom) {
				t.Fatalf("err = %v", err)
			}
			if _, replayed, err := s.Do(ctx, sc, "h", time.Hour, created); err != nil || replayed {
				t.Fatalf("retry after failure: replayed %v err %v", replayed, err)
			}
		})
		t.Run("ExpiredKeyIsReclaimed", func(t *testing.T) {
			if _, replayed, err := s.Do(ctx, scope, "h-new", -time.Second, created); err != nil || replayed {
				t.Fatalf("expired key: replayed %v err %v", replayed, err)
			}
		})
		t.Run("ConcurrentDuplicatesRunOnce", func(t *testing.T) {
			sc := scope
			sc.Key = "k-race"
			var runs atomic.Int32
			var wg sync.WaitGroup
			errs := make([]error, 12)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					store := s
					if i%2 == 1 {
						store = bunstore.New(db) // another replica: its own in-process locks
					}
					_, _, errs[i] = store.Do(ctx, sc, "h", time.Hour, func(context.Context) (httpapi.StoredResponse, error) {
						runs.Add(1)
						time.Sleep(20 * time.Millisecond)
						return httpapi.StoredResponse{Status: 201}, nil
					})
				}()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil && !errors.Is(err, httpapi.ErrIdempotencyInProgress) {
					t.Fatalf("duplicate: %v", err)
				}
			}
			if runs.Load() != 1 {
				t.Fatalf("fn ran %d times, want 1", runs.Load())
			}
		})
		t.Run("RetryWhileRunningConflicts", func(t *testing.T) {
			sc := scope
			sc.Key = "k-inflight"
			running, release := make(chan struct{}), make(chan struct{})
			first := make(chan error, 1)
			go func() {
				_, _, err := s.Do(ctx, sc, "h", time.Hour, func(context.Context) (httpapi.StoredResponse, error) {
					close(running)
					<-release
					return httpapi.StoredResponse{Status: 201, Body: []byte("first")}, nil
				})
				first <- err
			}()
			<-running
			retry := make(chan error, 1)
			go func() {
				_, _, err := s.Do(ctx, sc, "h", time.Hour, created)
				retry <- err
			}()
			select {
			case err := <-retry:
				if !errors.Is(err, httpapi.ErrIdempotencyInProgress) {
					t.Errorf("retry while the first runs: %v, want ErrInProgress", err)
				}
			case <-time.After(3 * time.Second):
				t.Error("the retry waited for the first request instead of answering ErrInProgress")
			}
			close(release)
			if err := <-first; err != nil {
				t.Fatalf("first: %v", err)
			}
			resp, replayed, err := s.Do(ctx, sc, "h", time.Hour, created)
			if err != nil || !replayed || string(resp.Body) != "first" {
				t.Fatalf("retry after the first = %+v %v %v, want its replay", resp, replayed, err)
			}
		})
		t.Run("LeftoverClaimIsFree", func(t *testing.T) {
			// Earlier versions committed a claim (status 0) before the work;
			// one whose request never finished does not hold the key.
			sc := scope
			sc.Key = "k-leftover"
			_, err := db.NewInsert().Model(&map[string]any{
				"tenant_id": sc.TenantID, "credential": sc.Credential, "key": sc.Key, "request_hash": "h",
				"status": 0, "created_at": time.Now().UTC(), "claim": "dead",
			}).TableExpr("idempotency_keys").Exec(ctx)
			check(t, err)
			before := calls
			if _, replayed, err := s.Do(ctx, sc, "h", time.Hour, created); err != nil || replayed || calls != before+1 {
				t.Fatalf("leftover claim: replayed %v err %v calls %d, want a fresh run", replayed, err, calls-before)
			}
		})
		t.Run("OtherReplicaConflictsUntilItsConnectionDies", func(t *testing.T) {
			if !database.IsPostgres(db) {
				t.Skip("replicas share a key's lock on Postgres; on SQLite the file's write lock serialises them")
			}
			// Two Stores are two replicas: nothing in-process is shared.
			sc := scope
			sc.Key = "k-replica"
			running, release := make(chan int, 1), make(chan struct{})
			first := make(chan error, 1)
			go func() {
				_, _, err := s.Do(ctx, sc, "h", time.Hour, func(ctx context.Context) (httpapi.StoredResponse, error) {
					var pid int
					if err := database.Conn(ctx, db).QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
						return httpapi.StoredResponse{}, err
					}
					running <- pid
					<-release
					return httpapi.StoredResponse{Status: 201, Body: []byte("first")}, nil
				})
				first <- err
			}()
			pid := <-running
			released := false
			defer func() { // a failed check must not leave the first request waiting
				if !released {
					close(release)
				}
			}()
			replica := bunstore.New(db)
			if _, _, err := replica.Do(ctx, sc, "h", time.Hour, created); !errors.Is(err, httpapi.ErrIdempotencyInProgress) {
				t.Fatalf("other replica while the first runs: %v, want ErrInProgress", err)
			}
			// The first replica's connection dies (its process was killed):
			// its transaction and lock go with it, and the retry runs now.
			// (pg_terminate_backend with a timeout waits until the backend
			// has gone, as a killed client's backend goes once it reads EOF.)
			_, err := db.ExecContext(ctx, "SELECT pg_terminate_backend(?, 5000)", pid)
			check(t, err)
			resp, replayed, err := replica.Do(ctx, sc, "h", time.Hour, func(context.Context) (httpapi.StoredResponse, error) {
				return httpapi.StoredResponse{Status: 201, Body: []byte("second")}, nil
			})
			if err != nil || replayed || string(resp.Body) != "second" {
				t.Fatalf("retry after the first's connection died = %+v %v %v, want a fresh run", resp, replayed, err)
			}
			close(release)
			released = true
			if err := <-first; err == nil {
				t.Fatal("the first request stored its response over a dead connection")
			}
			if resp, replayed, err := s.Do(ctx, sc, "h", time.Hour, created); err != nil || !replayed || string(resp.Body) != "second" {
				t.Fatalf("replay = %+v %v %v, want the second's response", resp, replayed, err)
			}
		})
		t.Run("Purge", func(t *testing.T) {
			n, err := s.Purge(ctx, time.Now().Add(time.Hour))
			if err != nil || n == 0 {
				t.Fatalf("purge = %d, %v", n, err)
			}
		})
	}, bunstore.Migrations())
}

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
