package billing

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/field"
)

// CustomerRecord is a customer a tenant keeps on record ("cus_…"), whom
// its invoices name by customer_id instead of repeating the details. A
// draft shows the customer's current details; finalizing it copies them
// onto the invoice, which keeps them whatever the customer becomes.
type CustomerRecord struct {
	// ID is "cus_" + a ULID; ids sort by creation time.
	ID string `json:"id"`
	// TenantID is the tenant the customer belongs to; never serialised.
	TenantID string `json:"-"`
	Name     string `json:"name"`
	// Email is stored trimmed and lower-case.
	Email string `json:"email"`
	// Address is the postal address; nil (omitted) when there is none.
	Address *Address `json:"address,omitempty"`
	// TaxID is the customer's tax number (VAT id, EIN…), "" for none.
	TaxID string `json:"tax_id"`
	// Locale is a BCP 47 language tag, "en" unless set.
	Locale string `json:"locale"`
	// Metadata is the tenant's own bounded key/value data; never nil.
	Metadata map[string]string `json:"metadata"`
	// ArchivedAt is when the customer was archived: it is then left out
	// of lists (unless asked for) and new invoices cannot name it.
	ArchivedAt *time.Time `json:"archived_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	// Outstanding is what the customer owes on its open invoices, one
	// entry per currency (sorted by currency), [] when nothing. It is
	// given by the answers about one customer (CustomerByID,
	// UpdateCustomer, ArchiveCustomer, CreateCustomer) and left out of
	// lists (nil), where it would cost a sum per customer.
	Outstanding []Outstanding `json:"outstanding,omitzero"`
}

// Outstanding is the sum of amount_due over a customer's open invoices in
// one currency.
type Outstanding struct {
	Currency  string `json:"currency"`
	AmountDue int64  `json:"amount_due"`
}

// Address is a postal address, of a customer and of the invoices that name
// it.
type Address struct {
	Line1      string `json:"line1" validate:"required,max=200,line"`
	Line2      string `json:"line2,omitempty" validate:"max=200,line"`
	City       string `json:"city,omitempty" validate:"max=100,line"`
	PostalCode string `json:"postal_code,omitempty" validate:"max=20,line"`
	State      string `json:"state,omitempty" validate:"max=100,line"`
	// Country is an upper-case ISO 3166-1 alpha-2 code ("DE").
	Country string `json:"country" validate:"required,country"`
}

// DefaultLocale is the locale of a customer that sets none, and of an
// invoice's inline customer.
const DefaultLocale = "en"

// Bounds of a customer's own fields (the others are those of invoices).
const (
	MaxTaxIDLen  = 64
	MaxLocaleLen = 35
)

// ErrCustomerNotFound: the customer does not exist, or belongs to another
// tenant. It matches ErrNotFound.
var ErrCustomerNotFound error = customerNotFound{}

type customerNotFound struct{}

func (customerNotFound) Error() string        { return "customer not found" }
func (customerNotFound) Is(target error) bool { return target == ErrNotFound }

// Detail is the sentence a client is shown.
func (customerNotFound) Detail() string { return "customer not found" }

// CustomerStore is the persistence of customers. As Store, it runs on the
// transaction ctx carries, limits every read and write to the tenant it is
// given and answers ErrCustomerNotFound for a customer the tenant does
// not have; billingtest.RunCustomers checks it.
type CustomerStore interface {
	// CreateCustomer inserts c, which carries its TenantID. ErrConflict
	// when the tenant has a customer with that id; ErrNotFound when the
	// tenant does not exist.
	CreateCustomer(ctx context.Context, c CustomerRecord) error
	// Customer returns the tenant's customer with id.
	Customer(ctx context.Context, tenantID, id string) (CustomerRecord, error)
	// CustomerForUpdate is Customer, and locks the customer until the
	// transaction in ctx ends (FOR UPDATE on Postgres).
	CustomerForUpdate(ctx context.Context, tenantID, id string) (CustomerRecord, error)
	// SaveCustomer writes every field of the tenant's customer c.ID but
	// the keys and CreatedAt, and copies its details (name, email,
	// address, tax id, locale) onto the tenant's draft invoices that name
	// it, which show the customer as it is until they are finalized.
	SaveCustomer(ctx context.Context, c CustomerRecord) error
	// ListCustomers returns up to f.Limit (≥ 1) of the tenant's customers,
	// newest (highest id) first, with id < f.Before when set, archived
	// ones only when f.Archived, matching f.Search (already lower-case) as
	// a substring of the name, case-insensitively, or of the email; and
	// whether more match beyond them.
	ListCustomers(ctx context.Context, tenantID string, f CustomerFilter) ([]CustomerRecord, bool, error)
	// Outstanding sums amount_due over the tenant's open invoices that
	// name the customer, per currency, sorted by currency; empty (not
	// nil) when none.
	Outstanding(ctx context.Context, tenantID, customerID string) ([]Outstanding, error)
}

// CustomerFilter selects and pages ListCustomers, newest first,
// keyset-paginated on the id. JSON names are the query parameters'.
type CustomerFilter struct {
	// Search keeps customers whose name or email contains it, ignoring
	// case ("" or blank for all).
	Search string `json:"search" validate:"max=254,line"`
	// Archived lists the archived customers as well.
	Archived bool `json:"archived"`
	// Limit is the page size: 1..MaxListLimit, DefaultListLimit when 0.
	Limit int
	// Before is the id of the last customer of the previous page.
	Before string
}

// CreateCustomerInput is the body of POST /api/v1/collections/customers.
type CreateCustomerInput struct {
	// Name is 1..MaxCustomerNameLen characters once trimmed.
	Name string `json:"name" validate:"required,max=200,text"`
	// Email is a plain address, stored trimmed and lower-case.
	Email   string   `json:"email" validate:"required,max=254,email"`
	Address *Address `json:"address,omitempty"`
	TaxID   string   `json:"tax_id,omitempty" validate:"max=64,line"`
	// Locale is a BCP 47 tag; empty means DefaultLocale.
	Locale string `json:"locale,omitempty" validate:"omitempty,max=35,locale"`
	// Metadata has the bounds of an invoice's.
	Metadata map[string]string `json:"metadata,omitempty" validate:"max=50,dive,keys,required,max=40,text,endkeys,max=500,text"`
}

// normalize trims what is stored trimmed, lower-cases the email and sets
// the default locale.
func (in CreateCustomerInput) normalize() CreateCustomerInput {
	in.Name = strings.TrimSpace(in.Name)
	in.Email = strings.ToLower(strings.TrimSpace(in.Email))
	in.TaxID = strings.TrimSpace(in.TaxID)
	if in.Locale == "" {
		in.Locale = DefaultLocale
	}
	if in.Address != nil {
		a := in.Address.trimmed()
		in.Address = &a
	}
	if in.Metadata == nil {
		in.Metadata = map[string]string{}
	}
	return in
}

func (a Address) trimmed() Address {
	for _, s := range []*string{&a.Line1, &a.Line2, &a.City, &a.PostalCode, &a.State, &a.Country} {
		*s = strings.TrimSpace(*s)
	}
	return a
}

// UpdateCustomerInput is the body of PATCH
// /api/v1/collections/customers/{id}, a JSON merge patch: a member left out
// is unchanged; one sent replaces, under the rules of CreateCustomerInput.
type UpdateCustomerInput struct {
	// Name and Email change when sent; neither can be cleared.
	Name  *string `json:"name,omitempty"`
	Email *string `json:"email,omitempty"`
	// Address is merged member by member into the customer's address;
	// null removes the address.
	Address AddressPatch `json:"address,omitzero"`
	// TaxID sets the tax id; null or "" clears it.
	TaxID Patch[string] `json:"tax_id,omitzero"`
	// Locale sets the locale; null or "" sets DefaultLocale.
	Locale Patch[string] `json:"locale,omitzero"`
	// Metadata is merged key by key as an invoice's (UpdateInvoiceInput).
	Metadata Patch[map[string]*string] `json:"metadata,omitzero"`
}

// AddressPatch is the address of UpdateCustomerInput, a JSON merge patch
// of its own: left out (unchanged), null (the address removed), or an
// object whose members replace the address's (a member sent as null or ""
// clears it). Unlike Patch, it refuses members it does not know, as the
// request body's decoder does.
type AddressPatch struct {
	Set   bool
	Null  bool
	Value AddressChange
}

// AddressChange holds the members of an AddressPatch.
type AddressChange struct {
	Line1      Patch[string] `json:"line1,omitzero"`
	Line2      Patch[string] `json:"line2,omitzero"`
	City       Patch[string] `json:"city,omitzero"`
	PostalCode Patch[string] `json:"postal_code,omitzero"`
	State      Patch[string] `json:"state,omitzero"`
	Country    Patch[string] `json:"country,omitzero"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *AddressPatch) UnmarshalJSON(b []byte) error {
	*p = AddressPatch{Set: true}
	if bytes.Equal(b, []byte("null")) {
		p.Null = true
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(&p.Value)
}

// MarshalJSON implements json.Marshaler (null when Null).
func (p AddressPatch) MarshalJSON() ([]byte, error) {
	if p.Null || !p.Set {
		return []byte("null"), nil
	}
	return json.Marshal(p.Value)
}

// IsZero reports that the member was left out, for omitzero.
func (p AddressPatch) IsZero() bool { return !p.Set }

// apply returns cur changed by p: nil when p is null.
func (p AddressPatch) apply(cur *Address) *Address {
	if p.Null {
		return nil
	}
	var a Address
	if cur != nil {
		a = *cur
	}
	for _, m := range []struct {
		patch Patch[string]
		to    *string
	}{{p.Value.Line1, &a.Line1}, {p.Value.Line2, &a.Line2}, {p.Value.City, &a.City},
		{p.Value.PostalCode, &a.PostalCode}, {p.Value.State, &a.State}, {p.Value.Country, &a.Country}} {
		if m.patch.Set {
			*m.to = m.patch.Value
		}
	}
	return &a
}

// applyCustomerUpdate returns cur changed as in says, checked as a
// create's on the members sent.
func applyCustomerUpdate(cur CustomerRecord, in UpdateCustomerInput) (CustomerRecord, error) {
	next := CreateCustomerInput{Name: cur.Name, Email: cur.Email, Address: cur.Address,
		TaxID: cur.TaxID, Locale: cur.Locale, Metadata: cur.Metadata}
	var sent []string
	if in.Name != nil {
		next.Name, sent = *in.Name, append(sent, "name")
	}
	if in.Email != nil {
		next.Email, sent = *in.Email, append(sent, "email")
	}
	if in.Address.Set {
		next.Address, sent = in.Address.apply(cur.Address), append(sent, "address")
	}
	if in.TaxID.Set {
		next.TaxID, sent = in.TaxID.Value, append(sent, "tax_id")
	}
	if in.Locale.Set {
		next.Locale, sent = in.Locale.Value, append(sent, "locale")
	}
	if in.Metadata.Set {
		next.Metadata, sent = mergeMetadata(cur.Metadata, in.Metadata), append(sent, "metadata")
	}
	next = next.normalize()
	if err := onlyOn(sent, field.Check(next)); err != nil {
		return CustomerRecord{}, err
	}
	c := cur
	c.Name, c.Email, c.Address, c.TaxID, c.Locale = next.Name, next.Email, next.Address, next.TaxID, next.Locale
	c.Metadata = maps.Clone(next.Metadata)
	return c, nil
}

// details is what an invoice copies of c: its Customer.
func (c CustomerRecord) details() Customer {
	return Customer{Name: c.Name, Email: c.Email, Address: c.Address, TaxID: c.TaxID, Locale: c.Locale}
}
