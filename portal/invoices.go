package portal

import (
	"errors"
	"html/template"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
)

// minLineRows is how many line item rows the new invoice form shows;
// "Add a line" posts the form back with one more.
const (
	minLineRows = 2
	maxLineRows = 50
)

type invoiceList struct {
	Invoices []billing.Invoice
	Status   string
	Statuses []billing.Status
	Next     template.URL // the query of the older page, built from values checked here
}

func (h *Handler) listInvoices(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	f := billing.ListFilter{Status: q.Get("status"), Before: q.Get("before"), Limit: 20}
	invs, more, err := h.cfg.Invoices.List(r.Context(), rq.membership.TenantID, f)
	if errors.Is(err, field.ErrInvalid) {
		return httpapi.NewProblem(http.StatusBadRequest, httpapi.CodeInvalidRequest, "That filter is not valid.")
	}
	if err != nil {
		return err
	}
	d := invoiceList{Invoices: invs, Status: f.Status, Statuses: billing.Statuses()}
	if more && len(invs) > 0 {
		d.Next = template.URL(url.Values{"status": {f.Status}, "before": {invs[len(invs)-1].ID}}.Encode())
	}
	return h.render(w, r, rq, http.StatusOK, "invoices", "Invoices", d)
}

// invoiceForm is the new invoice form as typed.
type invoiceForm struct {
	CustomerName, CustomerEmail, Currency, DueDate, Memo string
	Status                                               string
	Lines                                                []lineForm
}

type lineForm struct{ Description, Quantity, UnitPrice, TaxRate string }

func (h *Handler) newInvoice(w http.ResponseWriter, r *http.Request, rq *request) error {
	f := invoiceForm{Currency: "USD", Status: "draft", Lines: make([]lineForm, minLineRows)}
	for i := range f.Lines {
		f.Lines[i].Quantity = "1"
	}
	return h.render(w, r, rq, http.StatusOK, "invoice_new", "New invoice", f)
}

func readInvoiceForm(r *http.Request) invoiceForm {
	p := r.PostForm
	f := invoiceForm{CustomerName: p.Get("customer.name"), CustomerEmail: p.Get("customer.email"),
		Currency: strings.ToUpper(strings.TrimSpace(p.Get("currency"))), DueDate: p.Get("due_date"),
		Memo: p.Get("memo"), Status: p.Get("status")}
	rows, _ := strconv.Atoi(p.Get("rows"))
	rows = max(min(rows, maxLineRows), minLineRows)
	for i := range rows {
		l := lineForm{
			Description: p.Get("line_items[" + strconv.Itoa(i) + "].description"),
			Quantity:    p.Get("line_items[" + strconv.Itoa(i) + "].quantity"),
			UnitPrice:   p.Get("line_items[" + strconv.Itoa(i) + "].unit_amount"),
			TaxRate:     p.Get("line_items[" + strconv.Itoa(i) + "].tax_rate"),
		}
		f.Lines = append(f.Lines, l)
	}
	return f
}

// input turns the form into the service's input: blank rows are skipped,
// prices are decimals in the currency's unit ("19.99") and tax rates
// percentages ("8.25"). What cannot be read is a field error at the
// same path the service would use.
func (f invoiceForm) input() (billing.CreateInvoiceInput, error) {
	errs := field.Errors{}
	in := billing.CreateInvoiceInput{Customer: billing.CustomerInput{Name: f.CustomerName, Email: f.CustomerEmail},
		Currency: f.Currency, DueDate: f.DueDate, Memo: f.Memo, Status: f.Status}
	digits := 2
	if c, err := billing.LookupCurrency(f.Currency); err == nil {
		digits = c.Digits
	}
	for i, l := range f.Lines {
		if strings.TrimSpace(l.Description+l.UnitPrice+l.TaxRate) == "" {
			continue
		}
		formPath := "line_items[" + strconv.Itoa(i) + "]"
		item := billing.LineItemInput{Description: l.Description}
		q, err := strconv.ParseInt(strings.TrimSpace(l.Quantity), 10, 64)
		if err != nil {
			errs.Add(formPath+".quantity", field.Invalid, "must be a whole number")
		}
		item.Quantity = q
		if item.UnitAmount, err = decimal(l.UnitPrice, digits); err != nil {
			errs.Add(formPath+".unit_amount", field.Invalid, "must be an amount such as 19.99")
		}
		bps, err := decimal(orZero(l.TaxRate), 2)
		if err != nil || bps > 1<<31-1 {
			errs.Add(formPath+".tax_rate", field.Invalid, "must be a percentage such as 8.25")
		}
		item.TaxRateBps = int(bps)
		in.LineItems = append(in.LineItems, item)
	}
	return in, errs.Err()
}

func orZero(s string) string {
	if strings.TrimSpace(s) == "" {
		return "0"
	}
	return s
}

// decimal reads a non-negative decimal with at most digits decimals as
// an integer of its smallest unit ("19.99", 2 → 1999).
func decimal(s string, digits int) (int64, error) {
	s = strings.TrimSpace(s)
	rat, ok := new(big.Rat).SetString(s)
	if !ok || s == "" || strings.ContainsAny(s, "eE/") || rat.Sign() < 0 {
		return 0, errors.New("not an amount")
	}
	rat.Mul(rat, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil)))
	if !rat.IsInt() || !rat.Num().IsInt64() {
		return 0, errors.New("too many decimals")
	}
	return rat.Num().Int64(), nil
}

// formPaths maps the service's field paths for line items (counting only
// the rows sent) back to the form's rows.
func formPaths(err error, f invoiceForm) error {
	var ie *field.InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	rows := []int{}
	for i, l := range f.Lines {
		if strings.TrimSpace(l.Description+l.UnitPrice+l.TaxRate) != "" {
			rows = append(rows, i)
		}
	}
	out := field.Errors{}
	for _, fe := range ie.Errors() {
		path := fe.Field
		for n, row := range rows {
			prefix := "line_items[" + strconv.Itoa(n) + "]"
			if strings.HasPrefix(path, prefix) {
				path = "line_items[" + strconv.Itoa(row) + "]" + strings.TrimPrefix(path, prefix)
				path = strings.Replace(path, ".tax_rate_bps", ".tax_rate", 1)
				break
			}
		}
		if path == "line_items" {
			path = "line_items[0].description"
		}
		out.Add(path, fe.Code, fe.Message)
	}
	return out.Err()
}

func (h *Handler) createInvoice(w http.ResponseWriter, r *http.Request, rq *request) error {
	f := readInvoiceForm(r)
	if r.PostForm.Get("add_row") != "" {
		if len(f.Lines) < maxLineRows {
			f.Lines = append(f.Lines, lineForm{Quantity: "1"})
		}
		return h.render(w, r, rq, http.StatusOK, "invoice_new", "New invoice", f)
	}
	in, err := f.input()
	if err == nil {
		var inv billing.Invoice
		if inv, err = h.cfg.Invoices.Create(r.Context(), rq.membership.TenantID, in); err == nil {
			http.Redirect(w, r, h.cfg.BasePath+"/invoices/"+inv.ID+"?done=created", http.StatusSeeOther)
			return nil
		}
		err = formPaths(err, f)
	}
	if p := httpapi.ProblemFor(err); p.Status >= 500 {
		return err
	}
	return h.renderForm(w, r, rq, statusOf(err), "invoice_new", "New invoice", f, err)
}

// statusOf is the HTTP status a refused form is answered with.
func statusOf(err error) int { return httpapi.ProblemFor(err).Status }
