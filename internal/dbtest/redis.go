package dbtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Environment variables that steer the Redis tests.
const (
	EnvRedisURL     = "TENANTKIT_TEST_REDIS_URL"
	EnvRequireRedis = "TENANTKIT_REQUIRE_REDIS"
)

// Redis returns a client for the test Redis at TENANTKIT_TEST_REDIS_URL
// (default redis://127.0.0.1:6379/0), closed when the test ends. When it
// is unreachable the test is skipped, unless TENANTKIT_REQUIRE_REDIS=1
// makes that a failure (CI).
func Redis(tb testing.TB) *redis.Client {
	tb.Helper()
	url := os.Getenv(EnvRedisURL)
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		tb.Fatalf("%s %q: %v", EnvRedisURL, url, err)
	}
	client := redis.NewClient(opts)
	tb.Cleanup(func() { _ = client.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		msg := "Redis at " + url + " is unreachable (" + err.Error() + "); start one or set " + EnvRedisURL + " to run the Redis rate limiter tests"
		if os.Getenv(EnvRequireRedis) == "1" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return client
}
