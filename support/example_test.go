package support_test

import (
	"fmt"

	"github.com/tenantkit/tenantkit/support"
)

// An agent UI offers only the moves the transition table allows.
func ExampleTransitions() {
	for _, from := range support.Statuses() {
		fmt.Println(from, "→", support.Transitions(from))
	}
	// Output:
	// open → [pending on_hold solved closed]
	// pending → [open on_hold solved closed]
	// on_hold → [open pending solved closed]
	// solved → [open closed]
	// closed → []
}

// Tags are stored in one canonical form; filters should use it too.
func ExampleNormalizeTag() {
	for _, raw := range []string{"  Billing Issue ", "API_v2", "c++"} {
		tag, ok := support.NormalizeTag(raw)
		fmt.Printf("%q → %q %v\n", raw, tag, ok)
	}
	// Output:
	// "  Billing Issue " → "billing-issue" true
	// "API_v2" → "api_v2" true
	// "c++" → "" false
}
