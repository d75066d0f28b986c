package idempotency

import "time"

// SetClock makes s read the time from now; for tests.
func SetClock(s *Store, now func() time.Time) { s.now = now }
