package portal

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// moduleRow is one module on the modules page.
type moduleRow struct {
	ID, Name, Description string
	Enabled, Included     bool
	// AddOn: the plan sells it; Bought: the contract has it.
	AddOn, Bought bool
	// Switchable: the member's tenant may switch it (toggleable, and
	// included or bought), as the service decides.
	Switchable bool
}

func (h *Handler) modulesPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	return h.renderModules(w, r, rq, http.StatusOK, nil)
}

func (h *Handler) renderModules(w http.ResponseWriter, r *http.Request, rq *request, status int, ferr error) error {
	_, states, err := h.cfg.Entitlements.ListWithModules(r.Context(), rq.membership.TenantID)
	if err != nil {
		return err
	}
	terms, err := h.cfg.Contracts.Current(r.Context(), rq.membership.TenantID)
	if err != nil {
		return err
	}
	plan, _ := h.cfg.Catalog.Plan(terms.PlanID)
	rows := make([]moduleRow, 0, len(states))
	for _, st := range states {
		row := moduleRow{ID: st.Module, Name: st.Module, Enabled: st.Enabled,
			Included: slices.Contains(plan.Modules, st.Module), Bought: terms.HasAddOn(st.Module)}
		if m, ok := h.cfg.Catalog.Module(st.Module); ok {
			row.Name, row.Description = m.Name, m.Description
		}
		_, row.AddOn = plan.AddOn(st.Module)
		// An add-on the contract lacks cannot be switched on: it is bought
		// through a contract request, which the page links to instead.
		row.Switchable = h.cfg.Catalog.Toggleable(plan, st.Module) && (row.Included || row.Bought)
		rows = append(rows, row)
	}
	return h.renderForm(w, r, rq, status, "modules", "Modules", modulesData{Plan: plan, Modules: rows}, ferr)
}

type modulesData struct {
	Plan    catalog.Plan
	Modules []moduleRow
}

func (h *Handler) toggleModule(w http.ResponseWriter, r *http.Request, rq *request) error {
	module := r.PostForm.Get("module")
	enabled, perr := strconv.ParseBool(r.PostForm.Get("enabled"))
	if perr != nil {
		return httpapi.NewProblem(http.StatusBadRequest, httpapi.CodeInvalidRequest, "enabled must be true or false")
	}
	_, _, err := h.cfg.Modules.Toggle(r.Context(), rq.membership.TenantID, rq.membership.Role, module, enabled)
	if err == nil {
		http.Redirect(w, r, h.cfg.BasePath+"/modules?done=toggled", http.StatusSeeOther)
		return nil
	}
	if statusOf(err) >= 500 {
		return err
	}
	// The form has no field to mark: say what was refused, and why, above
	// the list.
	var ie *field.InvalidError
	if errors.As(err, &ie) {
		name := module
		if m, ok := h.cfg.Catalog.Module(module); ok {
			name = m.Name
		}
		var why []string
		for _, fe := range ie.Errors() {
			why = append(why, fe.Message)
		}
		err = httpapi.NewProblem(statusOf(err), httpapi.CodeValidationFailed,
			"You cannot switch "+name+": "+strings.Join(why, "; ")+".")
	}
	return h.renderModules(w, r, rq, statusOf(err), err)
}

// contractForm is the change request form, also used to preview it.
type contractForm struct {
	Type, PlanID, ModuleID, Seats, Effective, Note string
}

type contractsData struct {
	Requests []contract.Request
	Form     contractForm
	Preview  *contract.Preview
	Plans    []catalog.Plan
	Modules  []catalog.Module
	Current  string
}

func (h *Handler) contractsPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	f := contractForm{Type: q.Get("type"), PlanID: q.Get("plan_id"), ModuleID: q.Get("module_id"),
		Seats: q.Get("seats"), Effective: q.Get("effective"), Note: q.Get("note")}
	var perr error
	var prev *contract.Preview
	if q.Get("preview") != "" && rq.can(tenancy.PermBillingPreview) {
		in, err := f.previewInput()
		if err == nil {
			var p contract.Preview
			if p, err = h.cfg.Contracts.Preview(r.Context(), rq.membership.TenantID, in); err == nil {
				prev = &p
			}
		}
		if err != nil && statusOf(err) >= 500 {
			return err
		}
		perr = err
	}
	return h.renderContracts(w, r, rq, http.StatusOK, f, prev, perr)
}

func (h *Handler) renderContracts(w http.ResponseWriter, r *http.Request, rq *request, status int, f contractForm, prev *contract.Preview, ferr error) error {
	reqs, _, err := h.cfg.Contracts.Requests(r.Context(), rq.membership.TenantID, contract.Filter{Limit: 50})
	if err != nil {
		return err
	}
	if f.Effective == "" {
		f.Effective = string(contract.EffectiveNextPeriod)
	}
	d := contractsData{Requests: reqs, Form: f, Preview: prev, Plans: h.cfg.Catalog.Plans, Modules: catalogModules(h.cfg.Catalog),
		Current: rq.tenant.PlanID}
	return h.renderForm(w, r, rq, status, "contracts", "Contract", d, ferr)
}

func optional(s string) *string {
	if s = strings.TrimSpace(s); s == "" {
		return nil
	}
	return &s
}

func (f contractForm) seats() (*int, error) {
	if strings.TrimSpace(f.Seats) == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(f.Seats))
	if err != nil {
		return nil, fieldError("seats", "must be a whole number")
	}
	return &n, nil
}

func (f contractForm) submitInput() (contract.SubmitInput, error) {
	in := contract.SubmitInput{Type: f.Type, Effective: f.Effective, Note: f.Note}
	switch contract.ChangeType(f.Type) {
	case contract.ChangePlan:
		in.PlanID = optional(f.PlanID)
	case contract.AddModule, contract.RemoveModule:
		in.ModuleID = optional(f.ModuleID)
	case contract.ChangeSeats:
		n, err := f.seats()
		if err != nil {
			return in, err
		}
		in.Seats = n
	}
	return in, nil
}

// previewInput prices the change the form describes.
func (f contractForm) previewInput() (contract.PreviewInput, error) {
	in := contract.PreviewInput{Effective: optional(f.Effective)}
	switch contract.ChangeType(f.Type) {
	case contract.ChangePlan:
		in.PlanID = optional(f.PlanID)
	case contract.ChangeSeats:
		n, err := f.seats()
		if err != nil {
			return in, err
		}
		in.Seats = n
	}
	return in, nil
}

func (h *Handler) submitContract(w http.ResponseWriter, r *http.Request, rq *request) error {
	p := r.PostForm
	f := contractForm{Type: p.Get("type"), PlanID: p.Get("plan_id"), ModuleID: p.Get("module_id"),
		Seats: p.Get("seats"), Effective: p.Get("effective"), Note: p.Get("note")}
	in, err := f.submitInput()
	if err == nil {
		if _, err = h.cfg.Contracts.Submit(r.Context(), rq.membership.TenantID, rq.principal.User.ID, in); err == nil {
			http.Redirect(w, r, h.cfg.BasePath+"/contracts?done=submitted", http.StatusSeeOther)
			return nil
		}
	}
	if statusOf(err) >= 500 {
		return err
	}
	return h.renderContracts(w, r, rq, statusOf(err), f, nil, err)
}

func (h *Handler) cancelContract(w http.ResponseWriter, r *http.Request, rq *request) error {
	requestID := r.PathValue("id")
	if !id.Valid(id.Contract, requestID) {
		return contract.ErrRequestNotFound
	}
	_, err := h.cfg.Contracts.Cancel(r.Context(), rq.membership, requestID)
	if err == nil {
		http.Redirect(w, r, h.cfg.BasePath+"/contracts?done=cancelled", http.StatusSeeOther)
		return nil
	}
	if s := statusOf(err); s >= 500 || s == http.StatusNotFound {
		return err
	}
	return h.renderContracts(w, r, rq, statusOf(err), contractForm{}, nil, err)
}

// catalogModules lists every module of the catalog, app by app.
func catalogModules(cat *catalog.Catalog) []catalog.Module {
	var out []catalog.Module
	for _, a := range cat.Apps {
		out = append(out, a.Modules...)
	}
	return out
}

// fieldError is an *field.InvalidError on one field of a form.
func fieldError(path, msg string) error { return field.NewInvalidError(path, field.Invalid, msg) }
