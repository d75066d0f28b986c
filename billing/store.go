package billing

import "context"

// Store is the persistence Service needs. Implementations must be safe for
// concurrent use, run on the transaction carried by ctx when there is one
// (so that a Service operation commits or rolls back as one), limit every
// read and write of invoices to the tenant they are given, and translate
// driver errors into the sentinels named below; raw driver errors never
// leave a Store. billingtest.Run checks all of it.
type Store interface {
	// NextNumber advances the tenant's invoice counter and returns the new
	// value: 1 for the tenant's first invoice, then 2, 3, … It must be
	// atomic (concurrent calls never return the same value) and belong to
	// the transaction in ctx, so that a rolled-back create gives its number
	// back and numbers stay gapless.
	NextNumber(ctx context.Context, tenantID string) (int64, error)
	// CreateInvoice inserts inv, which carries its TenantID. ErrConflict
	// when the tenant already has an invoice with that id or number;
	// ErrNotFound when the tenant does not exist.
	CreateInvoice(ctx context.Context, inv Invoice) error
	// Invoice returns the tenant's invoice with id. ErrNotFound when the
	// tenant has none (another tenant's invoice is not found either).
	Invoice(ctx context.Context, tenantID, id string) (Invoice, error)
	// InvoiceForUpdate is Invoice, and also locks the invoice until the
	// transaction in ctx ends, so that read-modify-write cycles on one
	// invoice run one at a time (SELECT … FOR UPDATE on Postgres; SQLite
	// serialises writers anyway). ErrNotFound as Invoice.
	InvoiceForUpdate(ctx context.Context, tenantID, id string) (Invoice, error)
	// UpdateInvoice writes what operations change — status, AmountPaid,
	// AmountDue, Received, Refunded, FinalizedAt, PaidAt, Overdue,
	// UncollectibleReason — of the tenant's invoice inv.ID. ErrNotFound
	// when the tenant has no such invoice.
	UpdateInvoice(ctx context.Context, inv Invoice) error
	// ListInvoices returns up to f.Limit (≥ 1) of the tenant's invoices,
	// newest (highest id) first, with id < f.Before when f.Before is set,
	// matching f.Status, f.CustomerEmail and f.CustomerID when set; and whether more
	// match beyond them.
	ListInvoices(ctx context.Context, tenantID string, f ListFilter) (page []Invoice, hasMore bool, err error)
	// InvoiceTenant returns the tenant owning the invoice with id, for a
	// caller that knows only the id (a payment provider's webhook); it is
	// the one lookup not confined to a tenant. ErrNotFound when absent.
	InvoiceTenant(ctx context.Context, id string) (string, error)
	// UpdateInvoiceByID loads the invoice with id, whichever tenant owns
	// it, calls change on it and writes what change changed (the fields
	// UpdateInvoice writes), returning the invoice as written. It is for a
	// caller that knows only the id — a payment provider's webhook — and,
	// like InvoiceTenant, is not confined to a tenant. The invoice is
	// locked from load to write, so that concurrent changes of one invoice
	// run one after the other and none is lost: on the transaction in ctx
	// when there is one, without a savepoint of its own, else in a
	// transaction of its own. When change returns an error nothing is
	// written and that error is returned unwrapped (a caller's transaction
	// stays usable). change must not call the Store. ErrNotFound when no
	// tenant has the invoice.
	UpdateInvoiceByID(ctx context.Context, id string, change func(*Invoice) error) (Invoice, error)
	// SaveInvoice writes every field of the tenant's invoice inv.ID that
	// may change while it is a draft or as it is finalized: what
	// UpdateInvoice writes, and Number ("" for none), Customer, LineItems,
	// Subtotal, Tax, Total, DueDate, Memo and Metadata. ID, TenantID,
	// Currency and CreatedAt never change. ErrNotFound when the tenant has
	// no such invoice; ErrConflict when the tenant has another invoice
	// with that number.
	SaveInvoice(ctx context.Context, inv Invoice) error
	// DeleteInvoice removes the tenant's invoice with id. ErrNotFound when
	// the tenant has none (another tenant's invoice is not found either).
	DeleteInvoice(ctx context.Context, tenantID, id string) error
}

// ListFilter selects and pages invoices for List. Lists are newest first
// and keyset-paginated on the id, which sorts by creation time.
//
// Its validate tags are the rules of the filters, which List checks; the
// JSON names are those of the query parameters, which name a refused
// filter. Before, an opaque position to clients, is checked by List.
type ListFilter struct {
	// Status keeps only invoices in this status ("" for all).
	Status string `json:"status" validate:"omitempty,oneof=draft open paid void uncollectible"`
	// CustomerEmail keeps only invoices to this customer ("" or blank for
	// all); matched case-insensitively.
	CustomerEmail string `json:"customer_email" validate:"max=254,text"`
	// CustomerID keeps only invoices naming this customer on record.
	CustomerID string `json:"customer_id" validate:"omitempty,id=cus"`
	// Limit is the page size: 1..MaxListLimit, DefaultListLimit when 0.
	// Service.List clamps it into that range.
	Limit int
	// Before is the id of the last invoice of the previous page; the page
	// holds older invoices only. "" starts at the newest.
	Before string
}

// Page sizes of List.
const (
	DefaultListLimit = 20
	MaxListLimit     = 100
)
