package portal

import (
	"net/http"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
)

// Destructive actions ask first, without JavaScript: the button on the
// invoice page is a link to a confirmation page (GET), whose form posts
// the action with confirm=yes. A post without it (an old page, a
// hand-made form) changes nothing and is sent to the confirmation page.

// confirmField and confirmValue are what a confirmed form posts.
const (
	confirmField = "confirm"
	confirmValue = "yes"
)

// confirmData is the confirmation page.
type confirmData struct {
	// Question is the page's heading; Consequence says what cannot be
	// undone.
	Question, Consequence string
	// Action is the form's target; Button its label; Back where "Keep it"
	// leads.
	Action, Button, Back string
}

// confirmed reports whether the post on the request's invoice carries
// the confirmation of c; when it does not, it sends the browser to c's
// confirmation page. An id that is no invoice's is ErrNotFound.
func (h *Handler) confirmed(w http.ResponseWriter, r *http.Request, c invoiceConfirm) (bool, error) {
	invoiceID := r.PathValue("id")
	if !id.Valid(id.Invoice, invoiceID) {
		return false, billing.ErrNotFound
	}
	if r.PostForm.Get(confirmField) == confirmValue {
		return true, nil
	}
	http.Redirect(w, r, h.cfg.BasePath+"/invoices/"+invoiceID+"/"+c.path, http.StatusSeeOther)
	return false, nil
}

// invoiceConfirm is one destructive action on an invoice.
type invoiceConfirm struct {
	path, title, button string
	// allowed says whether the action applies to the invoice as it is.
	allowed func(billing.Invoice) bool
	// consequence words what happens, for the invoice.
	consequence func(billing.Invoice) string
}

var (
	voidConfirm = invoiceConfirm{path: "void", title: "Void", button: "Void the invoice",
		allowed: func(inv billing.Invoice) bool { return billing.CanTransition(inv.Status, billing.StatusVoid) },
		consequence: func(inv billing.Invoice) string {
			return "Its customer will owe nothing on it any more, and it cannot be reopened. Its number stays used."
		}}
	writeOffConfirm = invoiceConfirm{path: "uncollectible", title: "Write off", button: "Write the invoice off",
		allowed: func(inv billing.Invoice) bool {
			return billing.CanTransition(inv.Status, billing.StatusUncollectible)
		},
		consequence: func(inv billing.Invoice) string {
			return "It is marked uncollectible: a bad debt you no longer expect to be paid. Reminders stop."
		}}
	deleteConfirm = invoiceConfirm{path: "delete", title: "Delete", button: "Delete the draft",
		allowed: func(inv billing.Invoice) bool { return inv.Status == billing.StatusDraft },
		consequence: func(inv billing.Invoice) string {
			return "The draft and its lines are gone for good."
		}}
)

// confirmInvoice shows the confirmation page of c for the request's
// invoice; an invoice c does not apply to goes back to its page.
func (h *Handler) confirmInvoice(w http.ResponseWriter, r *http.Request, rq *request, c invoiceConfirm) error {
	inv, err := h.invoice(r, rq)
	if err != nil {
		return err
	}
	page := h.cfg.BasePath + "/invoices/" + inv.ID
	if !c.allowed(inv) {
		http.Redirect(w, r, page, http.StatusSeeOther)
		return nil
	}
	name := invoiceTitle(inv)
	d := confirmData{Question: c.title + " " + lowerFirst(name) + " to " + inv.Customer.Name + "?",
		Consequence: c.consequence(inv), Action: page + "/" + c.path, Button: c.button, Back: page}
	return h.render(w, r, rq, http.StatusOK, "confirm", c.title+" "+lowerFirst(name), d)
}

// lowerFirst lower-cases "Invoice …" and "Draft invoice" inside a sentence.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}

func (h *Handler) confirmVoid(w http.ResponseWriter, r *http.Request, rq *request) error {
	return h.confirmInvoice(w, r, rq, voidConfirm)
}

func (h *Handler) confirmWriteOff(w http.ResponseWriter, r *http.Request, rq *request) error {
	return h.confirmInvoice(w, r, rq, writeOffConfirm)
}

func (h *Handler) confirmDeleteInvoice(w http.ResponseWriter, r *http.Request, rq *request) error {
	return h.confirmInvoice(w, r, rq, deleteConfirm)
}

func (h *Handler) voidInvoice(w http.ResponseWriter, r *http.Request, rq *request) error {
	if ok, err := h.confirmed(w, r, voidConfirm); !ok {
		return err
	}
	return h.invoiceAction(w, r, rq, "voided", func(t, id string) (billing.Invoice, error) {
		return h.cfg.Invoices.Void(r.Context(), t, id)
	})
}

func (h *Handler) writeOffInvoice(w http.ResponseWriter, r *http.Request, rq *request) error {
	if ok, err := h.confirmed(w, r, writeOffConfirm); !ok {
		return err
	}
	return h.invoiceAction(w, r, rq, "writtenoff", func(t, id string) (billing.Invoice, error) {
		return h.cfg.Invoices.MarkUncollectible(r.Context(), t, id)
	})
}

// deleteInvoice deletes the draft and goes to the list (its page is gone).
func (h *Handler) deleteInvoice(w http.ResponseWriter, r *http.Request, rq *request) error {
	if ok, err := h.confirmed(w, r, deleteConfirm); !ok {
		return err
	}
	inv, err := h.invoice(r, rq)
	if err != nil {
		return err
	}
	err = h.cfg.Invoices.Delete(r.Context(), rq.membership.TenantID, inv.ID)
	if err == nil {
		http.Redirect(w, r, h.cfg.BasePath+"/invoices?done=deleted_invoice", http.StatusSeeOther)
		return nil
	}
	if s := statusOf(err); s >= 500 || s == http.StatusNotFound {
		return err
	}
	return h.renderInvoice(w, r, rq, statusOf(err), inv, err)
}
