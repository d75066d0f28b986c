package invoicepdf_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/pdftest"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// pdfText is the PDF's text (pdftest.Text).
func pdfText(t *testing.T, pdf []byte) string { return pdftest.Text(t, pdf) }

// pageObject matches a page's object, not the page tree's (/Pages).
var pageObject = regexp.MustCompile(`/Type /Page\b[^s]`)

// pages counts a PDF's pages; fpdf leaves the objects' dictionaries
// uncompressed.
func pages(pdf []byte) int { return len(pageObject.FindAll(pdf, -1)) }

var (
	issued = time.Date(2026, 3, 15, 9, 30, 0, 0, time.UTC)
	paidAt = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)
)

// collectionsInvoice is a finalized invoice of two lines, partly paid.
func collectionsInvoice() billing.Invoice {
	return billing.Invoice{
		ID: "inv_01JQ0000000000000000000001", TenantID: "ten_acme", Number: "INV-000042",
		Status:   billing.StatusOpen,
		Customer: billing.Customer{Name: "Jürgen Müller GmbH", Email: "billing@mueller.test"},
		Currency: "USD",
		LineItems: []billing.LineItem{
			{Description: "Consulting, March", Quantity: 12, UnitAmount: 15000, TaxRateBps: 1000, Amount: 180000},
			{Description: "Travel expenses", Quantity: 1, UnitAmount: 42050, Amount: 42050},
		},
		Subtotal: 222050, Tax: 18000, Total: 240050, AmountPaid: 100000, AmountDue: 140050,
		DueDate: "2026-04-14", CreatedAt: issued.Add(-time.Hour), FinalizedAt: &issued,
	}
}

// platformInvoice is the platform's paid invoice for March 2026.
func platformInvoice() contract.Invoice {
	return contract.Invoice{
		ID: "pin_01JQ0000000000000000000002", Number: 7, TenantID: "ten_acme",
		PeriodStart: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), PeriodEnd: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC),
		Currency: "EUR",
		Lines: []contract.PreviewLine{
			{Kind: contract.LinePlan, Description: "Growth plan", Quantity: 1, UnitAmount: 9900, Amount: 9900},
			{Kind: contract.LineSeats, Description: "Seats beyond 5", Quantity: 3, UnitAmount: 1200, Amount: 3600},
		},
		Subtotal: 13500, Total: 13500, AmountPaid: 13500, Status: contract.InvoicePaid,
		DueDate:   time.Date(2026, 4, 15, 0, 0, 0, 0, time.UTC),
		CreatedAt: time.Date(2026, 4, 1, 0, 0, 5, 0, time.UTC), PaidAt: &paidAt,
	}
}
