package tenancytest

import (
	"reflect"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// RunSettings checks a tenancy.SettingsStore: a tenant without settings
// reads every one unset, a save replaces them all (nil unsets), a
// tenant's settings are its own, and a tenant that does not exist cannot
// save any.
func RunSettings(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"Unset", testSettingsUnset},
		{"SaveReplaces", testSettingsSaveReplaces},
		{"Isolated", testSettingsIsolated},
		{"UnknownTenant", testSettingsUnknownTenant},
	})
}

func ptr[T any](v T) *T { return &v }

func wantSettings(tb testing.TB, s Backend, tenantID string, want tenancy.Settings) {
	tb.Helper()
	got, err := s.Settings(tb.Context(), tenantID)
	if err != nil {
		tb.Fatalf("Settings(%s): %v", tenantID, err)
	}
	if !reflect.DeepEqual(got, want) {
		tb.Errorf("Settings(%s) = %+v, want %+v", tenantID, got, want)
	}
}

func testSettingsUnset(t *testing.T, s Backend) {
	wantSettings(t, s, mustTenant(t, s).ID, tenancy.Settings{})
}

func testSettingsSaveReplaces(t *testing.T, s Backend) {
	ten := mustTenant(t, s)
	full := tenancy.Settings{PaymentLinkTemplate: ptr("https://pay.test/{invoice_id}"), InvoiceFooter: ptr("Thanks!\nAcme"),
		ReplyToEmail: ptr("billing@acme.test"), DefaultPaymentTermsDays: ptr(0)}
	for _, step := range []tenancy.Settings{full, {InvoiceFooter: ptr("Only this")}, {}} {
		if err := s.SaveSettings(t.Context(), ten.ID, step); err != nil {
			t.Fatalf("SaveSettings: %v", err)
		}
		wantSettings(t, s, ten.ID, step)
	}
}

func testSettingsIsolated(t *testing.T, s Backend) {
	a, b := mustTenant(t, s), mustTenant(t, s)
	if err := s.SaveSettings(t.Context(), a.ID, tenancy.Settings{InvoiceFooter: ptr("A's")}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveSettings(t.Context(), b.ID, tenancy.Settings{DefaultPaymentTermsDays: ptr(30)}); err != nil {
		t.Fatal(err)
	}
	wantSettings(t, s, a.ID, tenancy.Settings{InvoiceFooter: ptr("A's")})
	wantSettings(t, s, b.ID, tenancy.Settings{DefaultPaymentTermsDays: ptr(30)})
}

func testSettingsUnknownTenant(t *testing.T, s Backend) {
	err := s.SaveSettings(t.Context(), id.New(id.Tenant), tenancy.Settings{InvoiceFooter: ptr("x")})
	wantErr(t, "SaveSettings(unknown tenant)", err, tenancy.ErrNotFound)
}
