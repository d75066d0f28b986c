package billing

import "time"

// OverdueFrom returns when an invoice due on dueDate becomes overdue:
// 00:00 UTC on the day after it. The due date is the last day to pay, so
// an invoice due on 2026-12-01 is overdue from 2026-12-02T00:00:00Z. ok is
// false when dueDate is "" or not a date (DateLayout).
func OverdueFrom(dueDate string) (from time.Time, ok bool) {
	d, err := time.Parse(DateLayout, dueDate)
	if err != nil {
		return time.Time{}, false
	}
	return d.AddDate(0, 0, 1), true
}

// pastDue reports whether inv's due date has passed at now.
func (inv *Invoice) pastDue(now time.Time) bool {
	from, ok := OverdueFrom(inv.DueDate)
	return ok && !now.Before(from)
}
