package tenantkit_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/tenantkit/tenantkit"
)

// A periodic job of the host's own, beside tenantkit's: add it to a
// Scheduler (an App's, in a real host: app.Scheduler.Add) and tick it at a
// time of your choosing, as tests do; Run ticks on a timer instead.
func ExampleScheduler_Add() {
	s := tenantkit.NewScheduler()
	s.Add("reports.nightly", func(_ context.Context, now time.Time) (int, error) {
		fmt.Println("nightly report for", now.Format(time.DateOnly))
		return 1, nil
	})
	if err := s.Tick(context.Background(), time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)); err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Jobs())
	// Output:
	// nightly report for 2026-12-01
	// [reports.nightly]
}
