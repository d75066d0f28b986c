package idempotency_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/idempotency"
)

var _ httpapi.IdempotencyStore = (*idempotency.Store)(nil)

func TestStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := idempotency.New(db)
		scope := idempotency.Scope{TenantID: "ten_a", Credential: "key:k", Key: "k1"}
		calls := 0
		created := func(ctx context.Context) (idempotency.Response, error) {
			calls++
			return idempotency.Response{Status: 201, ContentType: "application/json", Location: "/x/1", Body: []byte(`{"id":1}`)}, nil
		}

		resp, replayed, err := s.Do(ctx, scope, "h1", time.Hour, created)
		if err != nil || replayed || resp.Status != 201 || calls != 1 {
			t.Fatalf("first = %+v %v %v calls %d", resp, replayed, err, calls)
		}
		resp, replayed, err = s.Do(ctx, scope, "h1", time.Hour, created)
		if err != nil || !replayed || resp.Status != 201 || string(resp.Body) != `{"id":1}` || resp.Location != "/x/1" || calls != 1 {
			t.Fatalf("replay = %+v %v %v calls %d", resp, replayed, err, calls)
		}
		if _, _, err := s.Do(ctx, scope, "h2", time.Hour, created); !errors.Is(err, idempotency.ErrKeyReused) {
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
			if _, _, err := s.Do(ctx, sc, "h", time.Hour, func(context.Context) (idempotency.Response, error) {
				return idempotency.Response{}, boom
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
					_, _, errs[i] = s.Do(ctx, sc, "h", time.Hour, func(context.Context) (idempotency.Response, error) {
						runs.Add(1)
						time.Sleep(20 * time.Millisecond)
						return idempotency.Response{Status: 201}, nil
					})
				}()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatalf("duplicate: %v", err)
				}
			}
			if runs.Load() != 1 {
				t.Fatalf("fn ran %d times, want 1", runs.Load())
			}
		})
		t.Run("Purge", func(t *testing.T) {
			n, err := s.Purge(ctx, time.Now().Add(time.Hour))
			if err != nil || n == 0 {
				t.Fatalf("purge = %d, %v", n, err)
			}
		})
	}, idempotency.Migrations())
}
