package tenancy

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/tenantkit/tenantkit/field"
)

// Settings are a tenant's own settings of how its invoices reach its
// customers (SPEC §18): GET and PATCH /api/tenant/settings. Each is nil
// until set; a tenant that never set any has every one nil.
type Settings struct {
	// PaymentLinkTemplate is where the hosted invoice page's Pay button
	// leads: a URL with the placeholders of PaymentLinkPlaceholders, which
	// the page fills in, URL-escaped. tenantkit never handles cards.
	PaymentLinkTemplate *string `json:"payment_link_template"`
	// InvoiceFooter is text shown under the invoice on its hosted page.
	InvoiceFooter *string `json:"invoice_footer"`
	// ReplyToEmail is the address the customers' replies should go to.
	ReplyToEmail *string `json:"reply_to_email"`
	// DefaultPaymentTermsDays is how many days after finalizing an
	// invoice is due, when it names no due date of its own (0..365).
	DefaultPaymentTermsDays *int `json:"default_payment_terms_days"`
}

// SettingsValues are the rules of each setting, as validate tags: what
// UpdateSettings checks on each member a patch sets (and what the API's
// document states of SettingsPatch's members).
type SettingsValues struct {
	PaymentLinkTemplate     string `json:"payment_link_template" validate:"max=2000,line"`
	InvoiceFooter           string `json:"invoice_footer" validate:"max=500,text"`
	ReplyToEmail            string `json:"reply_to_email" validate:"omitempty,max=254,email"`
	DefaultPaymentTermsDays int    `json:"default_payment_terms_days" validate:"min=0,max=365"`
}

// SettingsPatch changes a tenant's settings with the semantics of a JSON
// merge patch (RFC 7396): a member left out is unchanged, one sent as
// null clears the setting (as "" does for the texts), one sent with a
// value replaces it under the rules of SettingsValues.
type SettingsPatch struct {
	PaymentLinkTemplate     field.Patch[string] `json:"payment_link_template,omitzero"`
	InvoiceFooter           field.Patch[string] `json:"invoice_footer,omitzero"`
	ReplyToEmail            field.Patch[string] `json:"reply_to_email,omitzero"`
	DefaultPaymentTermsDays field.Patch[int]    `json:"default_payment_terms_days,omitzero"`
}

// SettingsStore keeps each tenant's settings. Implementations confine
// every statement to the tenant they are given and run on the transaction
// in ctx when there is one; tenancytest.RunSettings checks them.
type SettingsStore interface {
	// Settings returns the tenant's settings: every one nil when the
	// tenant never saved any.
	Settings(ctx context.Context, tenantID string) (Settings, error)
	// SaveSettings replaces the tenant's settings with s (nil: unset).
	// ErrNotFound when the tenant does not exist.
	SaveSettings(ctx context.Context, tenantID string, s Settings) error
}

// TenantSettings reads and changes the tenants' settings.
type TenantSettings struct {
	store SettingsStore
	tx    Transactor
}

// NewSettings returns the settings service on store, changing them in
// transactions of tx.
func NewSettings(store SettingsStore, tx Transactor) *TenantSettings {
	return &TenantSettings{store: store, tx: tx}
}

// Get returns the tenant's settings.
func (s *TenantSettings) Get(ctx context.Context, tenantID string) (Settings, error) {
	st, err := s.store.Settings(ctx, tenantID)
	if err != nil {
		return Settings{}, fmt.Errorf("tenancy: settings of %s: %w", tenantID, err)
	}
	return st, nil
}

// Update applies p to the tenant's settings and returns them as saved.
// *InvalidError (ErrInvalid) names each member that breaks its rule: the
// tags of SettingsValues, and for the payment link template those of
// CheckPaymentLinkTemplate.
func (s *TenantSettings) Update(ctx context.Context, tenantID string, p SettingsPatch) (Settings, error) {
	if err := checkSettingsPatch(p); err != nil {
		return Settings{}, err
	}
	var out Settings
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		cur, err := s.store.Settings(ctx, tenantID)
		if err != nil {
			return err
		}
		cur.PaymentLinkTemplate = emptyIsNil(p.PaymentLinkTemplate.Apply(cur.PaymentLinkTemplate))
		cur.InvoiceFooter = emptyIsNil(p.InvoiceFooter.Apply(cur.InvoiceFooter))
		cur.ReplyToEmail = emptyIsNil(p.ReplyToEmail.Apply(cur.ReplyToEmail))
		cur.DefaultPaymentTermsDays = p.DefaultPaymentTermsDays.Apply(cur.DefaultPaymentTermsDays)
		out = cur
		return s.store.SaveSettings(ctx, tenantID, cur)
	})
	if err != nil {
		return Settings{}, fmt.Errorf("tenancy: update settings of %s: %w", tenantID, err)
	}
	return out, nil
}

// checkSettingsPatch checks the members p sets.
func checkSettingsPatch(p SettingsPatch) error {
	v := SettingsValues{PaymentLinkTemplate: p.PaymentLinkTemplate.Value, InvoiceFooter: p.InvoiceFooter.Value,
		ReplyToEmail: p.ReplyToEmail.Value, DefaultPaymentTermsDays: p.DefaultPaymentTermsDays.Value}
	errs := field.Errors{}
	errs.Merge(field.Check(v))
	if _, bad := errs["payment_link_template"]; !bad && v.PaymentLinkTemplate != "" {
		if msg := CheckPaymentLinkTemplate(v.PaymentLinkTemplate); msg != "" {
			errs.Add("payment_link_template", field.Invalid, msg)
		}
	}
	return errs.Err()
}

// emptyIsNil stores an empty text as unset, so that "" clears as null does.
func emptyIsNil(s *string) *string {
	if s != nil && *s == "" {
		return nil
	}
	return s
}

// PaymentLinkPlaceholders are the placeholders a payment link template
// may hold, each replaced by the invoice's value, URL-escaped.
var PaymentLinkPlaceholders = []string{"{invoice_id}", "{number}", "{amount_due}", "{currency}"}

// placeholder finds anything in braces, known or not.
var placeholder = regexp.MustCompile(`\{[^{}]*\}`)

// CheckPaymentLinkTemplate returns what is wrong with a payment link
// template, "" when nothing is: it must be an absolute https URL with a
// host once its placeholders are filled in, and hold only the
// placeholders of PaymentLinkPlaceholders. Plain http is allowed only for
// localhost, 127.0.0.1 and [::1] (development and tests): a customer's
// payment must not leave over an unencrypted link.
func CheckPaymentLinkTemplate(tmpl string) string {
	for _, p := range placeholder.FindAllString(tmpl, -1) {
		if !contains(PaymentLinkPlaceholders, p) {
			return fmt.Sprintf("has the unknown placeholder %s; known are %s", field.Truncate(p, 40), strings.Join(PaymentLinkPlaceholders, ", "))
		}
	}
	filled := FillPaymentLink(tmpl, "inv_x", "INV-1", "1.00", "USD")
	if strings.ContainsAny(filled, "{}") {
		return "has an unmatched { or }"
	}
	u, err := url.Parse(filled)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.User != nil:
		return "must be an absolute URL such as https://pay.example.com/{invoice_id}, without credentials"
	case u.Scheme == "https":
		return ""
	case u.Scheme == "http" && (u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1" || u.Hostname() == "::1"):
		return ""
	}
	return "must be an https URL (http only for localhost)"
}

// FillPaymentLink replaces the placeholders of tmpl with the values
// given, each URL-escaped (as a path segment, which is also safe in a
// query), so that no value can change the link's structure.
func FillPaymentLink(tmpl, invoiceID, number, amountDue, currency string) string {
	return strings.NewReplacer(
		"{invoice_id}", url.PathEscape(invoiceID),
		"{number}", url.PathEscape(number),
		"{amount_due}", url.PathEscape(amountDue),
		"{currency}", url.PathEscape(currency),
	).Replace(tmpl)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
