package tenancy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Thresholds of a finite limit at which the tenant is told, in percent.
const (
	ThresholdWarning = 80
	ThresholdReached = 100
)

// thresholdMark returns the usage at which pct percent of limit is
// reached, rounded up: 8 for 80 % of 10, 1 for 80 % of 1. Computed without
// limit*pct so that no limit can overflow it.
func thresholdMark(limit, pct int64) int64 {
	return limit/100*pct + (limit%100*pct+99)/100
}

// notifyThresholds creates one entitlement.threshold notification, and
// records one entitlement.threshold event (by whoever spent the unit), for
// each threshold that the increment from before to after crossed. The
// increments of one counter are serialised by
// EntitlementStore.ConsumeUsage, so each mark is crossed by exactly one
// consumer; the notification key also keeps it to one per feature,
// threshold and period when the limit changes within the period. An
// increment that crosses both marks at once (a limit below 5, or a large
// n) creates both.
func (s *Entitlements) notifyThresholds(ctx context.Context, tenantID, feature string, limit, before, after int64, now time.Time) error {
	if limit <= 0 {
		return nil
	}
	period, start, end := Period(now)
	for _, pct := range [...]int64{ThresholdWarning, ThresholdReached} {
		mark := thresholdMark(limit, pct)
		if before >= mark || after < mark {
			continue
		}
		n := s.thresholdNotification(feature, pct, limit, after, start, end)
		n.Key = fmt.Sprintf("%s:%s:%s:%d", NotificationEntitlementThreshold, feature, period, pct)
		_, err := s.notes.Notify(ctx, tenantID, n)
		switch {
		case errors.Is(err, ErrConflict):
			continue // told before in this period: no new crossing
		case err != nil:
			return err
		}
		if err := record(ctx, s.events, tenantID, eventThreshold, "entitlement", feature, n.Data); err != nil {
			return err
		}
	}
	return nil
}

func (s *Entitlements) thresholdNotification(feature string, pct, limit, usage int64, start, end time.Time) NewNotification {
	name := s.featureName(feature)
	month, unit := start.Format("January 2006"), strings.ToLower(name)
	n := NewNotification{
		Type: NotificationEntitlementThreshold,
		Data: map[string]any{
			"feature":      feature,
			"threshold":    pct,
			"limit":        limit,
			"usage":        usage,
			"period_start": start.Format(time.RFC3339),
			"period_end":   end.Format(time.RFC3339),
		},
	}
	if pct >= ThresholdReached {
		n.Title = fmt.Sprintf("%s: monthly limit reached", name)
		n.Body = fmt.Sprintf("Your organisation has used all %d %s included for %s. "+
			"More will be refused until the period ends or your limit is raised.", limit, unit, month)
	} else {
		n.Title = fmt.Sprintf("%s: %d%% of the monthly limit used", name, pct)
		n.Body = fmt.Sprintf("Your organisation has used %d of the %d %s included for %s.", usage, limit, unit, month)
	}
	return n
}
