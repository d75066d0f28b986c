package tenancytest

import (
	"testing"
	"time"
)

// The tenants the contract request cases write for. RunContracts's
// newBackend must return a backend in which both exist.
const (
	TenantA = "ten_00000000000000000000000001"
	TenantB = "ten_00000000000000000000000002"
)

// RunContracts checks a contract.Store (Backend.Contracts): every method,
// its documented errors, its behaviour under concurrent callers, that it
// joins the transactions of Backend.Tx, and that no tenant sees another's
// terms or requests. newBackend is called once per case and must return a
// backend in which TenantA and TenantB exist and no contract request is
// stored (the scheduler's query spans tenants); the terms cases create
// tenants of their own, keyed uniquely.
func RunContracts(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"Terms", testTerms},
		{"Members", testMembers},
		{"TermsIsolation", testTermsIsolation},
		{"CreateAndGet", testRequestRoundTrip},
		{"OnePendingPerType", testOnePendingPerType},
		{"OnePendingPerTypeConcurrent", testOnePendingConcurrent},
		{"RequestNotFound", testRequestNotFound},
		{"UpdateGuardedByStatus", testUpdateRequest},
		{"DecideConcurrent", testDecideConcurrent},
		{"ListRequests", testListRequests},
		{"AllRequests", testAllRequests},
		{"DueRequests", testDueRequests},
		{"RequestIsolation", testRequestIsolation},
	})
}

// base is the creation time of the suite's requests: UTC, whole
// microseconds, as the contract service stores them.
func base() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 123456000, time.UTC) }
