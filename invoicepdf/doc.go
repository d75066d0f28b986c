// Package invoicepdf draws invoices as PDF documents: a tenant's finalized
// collections invoice (billing.Invoice) and the platform's invoice to a
// tenant (contract.Invoice), with github.com/go-pdf/fpdf.
//
// A document holds the issuer, the customer, the invoice's number, id,
// status, issue and due dates, its lines (description, quantity, unit
// price, amount), the subtotal, tax, total, amount paid and amount due,
// every amount in its currency's major unit (billing.FormatAmount: 1999
// USD is 19.99, 1999 JPY is 1999). Long descriptions wrap; lines that do
// not fit on a page continue on the next, under the table's header again.
//
// Rendering is deterministic: the same invoice gives the same bytes, so a
// PDF can be cached, compared or signed. The document's creation and
// modification dates are the invoice's issue date (not the time of
// rendering), fpdf's catalogs are written in sorted order, and nothing
// else depends on the clock, a map's order or randomness. The streams are
// compressed with Go's compress/flate, whose output is the same for the
// same input within a Go release.
//
// Text is drawn in the PDF core fonts (Helvetica), which need no font file
// and keep a page small, in their Windows-1252 encoding: Latin scripts
// with their accents (é, ß, ø), the euro sign and typographic quotes are
// drawn as they are; a character outside Windows-1252 (Cyrillic, Greek,
// CJK, emoji) is drawn as "?". Embedding a TTF with those scripts would
// add hundreds of kilobytes to each document; a host that needs them can
// supply a renderer of its own (httpapi.Config.InvoicePDF).
//
// The package knows the domain types it draws, not HTTP or SQL.
package invoicepdf
