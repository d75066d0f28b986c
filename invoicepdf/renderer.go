package invoicepdf

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// DefaultPlatformName is the issuer of platform invoices when New is not
// given WithPlatformName.
const DefaultPlatformName = "tenantkit"

// ErrDraft refuses to draw a draft: it has no number and its amounts may
// still change, so it is no document to send. It is a billing.ErrConflict
// (the API answers 409 conflict with current_status "draft").
var ErrDraft error = draftError{}

// draftError is ErrDraft.
type draftError struct{}

func (draftError) Error() string { return "invoicepdf: a draft invoice has no PDF; finalize it first" }

// Detail is the sentence for the client.
func (draftError) Detail() string {
	return "invoice is draft, cannot render a PDF: finalize it first"
}

// Is makes ErrDraft a billing.ErrConflict.
func (draftError) Is(target error) bool { return target == billing.ErrConflict }

// CurrentStatus is the status that refused the PDF.
func (draftError) CurrentStatus() string { return string(billing.StatusDraft) }

// Renderer draws invoices as PDF documents. It holds no state between
// calls, so one may serve any number of goroutines.
type Renderer struct {
	platformName string
}

// Option tunes a Renderer.
type Option func(*Renderer)

// WithPlatformName names the issuer of platform invoices: the platform's
// company name ("Example Cloud Ltd"). Empty keeps DefaultPlatformName.
func WithPlatformName(name string) Option {
	return func(r *Renderer) {
		if name = strings.TrimSpace(name); name != "" {
			r.platformName = name
		}
	}
}

// New returns a Renderer.
func New(opts ...Option) *Renderer {
	r := &Renderer{platformName: DefaultPlatformName}
	for _, opt := range opts {
		opt(r)
	}
	return r
}

// PlatformName is the issuer the Renderer prints on platform invoices.
func (r *Renderer) PlatformName() string { return r.platformName }

// Collections draws a tenant's invoice to one of its customers; issuer is
// the tenant's name, hostedURL its hosted page ("" for none), printed and
// linked under the totals. ErrDraft for a draft.
func (r *Renderer) Collections(inv billing.Invoice, issuer, hostedURL string) ([]byte, error) {
	if inv.Status == billing.StatusDraft || inv.FinalizedAt == nil {
		return nil, fmt.Errorf("invoicepdf: invoice %s: %w", inv.ID, ErrDraft)
	}
	d := document{
		issuer:   party{name: issuer},
		customer: customerParty(inv.Customer),
		number:   inv.Number,
		id:       inv.ID,
		status:   string(inv.Status),
		issued:   inv.FinalizedAt.UTC(),
		due:      inv.DueDate,
		currency: inv.Currency,
		subtotal: inv.Subtotal, tax: inv.Tax, total: inv.Total,
		paid: inv.AmountPaid, amountDue: inv.AmountDue,
		link: hostedURL,
	}
	for _, l := range inv.LineItems {
		d.lines = append(d.lines, line{description: l.Description, quantity: l.Quantity, unit: l.UnitAmount, amount: l.Amount})
	}
	return d.render()
}

// Platform draws the platform's invoice to a tenant; tenantName is the
// tenant's name, printed as the customer above its id.
func (r *Renderer) Platform(inv contract.Invoice, tenantName string) ([]byte, error) {
	if inv.ID == "" || inv.Number <= 0 {
		return nil, errors.New("invoicepdf: a platform invoice needs its id and number")
	}
	d := document{
		issuer:   party{name: r.platformName},
		customer: party{name: tenantName, lines: []string{inv.TenantID}},
		number:   PlatformNumber(inv.Number),
		id:       inv.ID,
		status:   string(inv.Status),
		issued:   inv.CreatedAt.UTC(),
		due:      inv.DueDate.UTC().Format(time.DateOnly),
		period: fmt.Sprintf("%s to %s", inv.PeriodStart.UTC().Format(time.DateOnly),
			inv.PeriodEnd.UTC().Add(-time.Nanosecond).Format(time.DateOnly)),
		currency: inv.Currency,
		subtotal: inv.Subtotal, tax: inv.Total - inv.Subtotal, total: inv.Total,
		paid: inv.AmountPaid, amountDue: inv.AmountDue,
	}
	for _, l := range inv.Lines {
		d.lines = append(d.lines, line{description: l.Description, quantity: l.Quantity, unit: l.UnitAmount, amount: l.Amount})
	}
	return d.render()
}

// PlatformNumber is how a platform invoice's number is printed, and its
// PDF named: "7" (the number the API and the CLI show as #7).
func PlatformNumber(n int64) string { return fmt.Sprint(n) }

// customerParty is the "Bill to" block of a collections invoice: the
// customer's name, its postal address and tax id when it has them (a
// customer on record's, copied at finalize), and its email.
func customerParty(c billing.Customer) party {
	p := party{name: c.Name}
	if a := c.Address; a != nil {
		p.lines = append(p.lines, a.Line1)
		if a.Line2 != "" {
			p.lines = append(p.lines, a.Line2)
		}
		if city := strings.TrimSpace(strings.Join([]string{a.PostalCode, a.City}, " ")); city != "" {
			p.lines = append(p.lines, city)
		}
		if a.State != "" {
			p.lines = append(p.lines, a.State)
		}
		p.lines = append(p.lines, a.Country)
	}
	if c.TaxID != "" {
		p.lines = append(p.lines, "Tax ID "+c.TaxID)
	}
	if c.Email != "" {
		p.lines = append(p.lines, c.Email)
	}
	return p
}
