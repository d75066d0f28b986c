package portal

import "time"

// SetLinkClock makes l read the time from now, so that tests can age its
// links past LinkTTL.
func SetLinkClock(l *Links, now func() time.Time) { l.now = now }
