package portal

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

//go:embed templates/*.html static/style.css
var assets embed.FS

// views holds one template set per page, each the layout plus the page.
// A page's set is made the first time the page is shown: made at start,
// the 22 sets held 1.3 MB of the 2 MB a serving process keeps on its
// heap, which the garbage collector marks on every cycle and which stays
// in memory in servers whose portal nobody opens. TestEveryPageParses
// makes each of them, so a broken template still fails the tests.
type views struct {
	pages map[string]func() (*template.Template, error)
	css   []byte
}

// page returns the template set of page name.
func (v *views) page(name string) (*template.Template, error) {
	parse, ok := v.pages[name]
	if !ok {
		return nil, fmt.Errorf("portal: no template %q", name)
	}
	return parse()
}

func newViews(base string) (*views, error) {
	funcs := template.FuncMap{
		"base": func() string { return base },
		// Formatting for the viewer's locale (view.Locale), with the
		// shared formatter of package display.
		"money":      money,
		"date":       day,
		"dateOnly":   dateOnly,
		"datetime":   dateTime,
		"count":      count,
		"moneyList":  moneyList,
		"dayBefore":  dayBefore,
		"badge":      badge,
		"statusText": statusText,
		"inputID":    inputID,
		"errID":      func(path string) string { return "err-" + inputID(path) },
		"fieldErr":   func(errs map[string]string, path string) string { return errs[path] },
		// fieldErrs joins the errors of path and of its elements
		// ("event_types", "event_types[2]").
		"fieldErrs": func(errs map[string]string, path string) string {
			var msgs []string
			for _, k := range slices.Sorted(maps.Keys(errs)) {
				if k == path || strings.HasPrefix(k, path+"[") {
					msgs = append(msgs, errs[k])
				}
			}
			return strings.Join(msgs, "; ")
		},
		"has":  func(set map[string]bool, k string) bool { return set[k] },
		"join": strings.Join,
		"last": func(as []outbound.Attempt) *outbound.Attempt {
			if len(as) == 0 {
				return nil
			}
			return &as[len(as)-1]
		},
		"percent": percent,
		"taxRate": taxRate,
		"deref":   func(p *int64) int64 { return *p },
		"isTrue":  func(p *bool) bool { return p != nil && *p },
		"seq": func(n int) []int {
			out := make([]int, n)
			for i := range out {
				out[i] = i
			}
			return out
		},
		"lineField": func(i int, name string) string { return fmt.Sprintf("line_items[%d].%s", i, name) },
		"featureName": func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(s, ".", " · "), "_", " ")
		},
	}
	// The layout, with the partials (templates/_*.html) every page may use.
	layout, err := template.New("layout").Funcs(funcs).ParseFS(assets, "templates/layout.html", "templates/_*.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	v := &views{pages: map[string]func() (*template.Template, error){}}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" || strings.HasPrefix(name, "_") {
			continue
		}
		v.pages[name] = sync.OnceValues(func() (*template.Template, error) {
			t, err := layout.Clone() // layout itself is never executed, so it clones
			if err != nil {
				return nil, err
			}
			return t.ParseFS(assets, n)
		})
	}
	if v.css, err = assets.ReadFile("static/style.css"); err != nil {
		return nil, err
	}
	return v, nil
}

// inputID turns a field path ("line_items[1].quantity") into an HTML id
// ("line_items-1-quantity").
func inputID(path string) string {
	return strings.NewReplacer(".", "-", "[", "-", "]", "").Replace(path)
}

// percent is usage as a whole percentage of limit, at most 100.
func percent(usage int64, limit *int64) int64 {
	if limit == nil || *limit <= 0 {
		if usage > 0 && limit != nil {
			return 100
		}
		return 0
	}
	p := usage * 100 / *limit
	return min(p, 100)
}

// taxRate shows a tax rate in basis points as the invoice form takes it,
// a percentage: 1000 → "10%", 825 → "8.25%", 850 → "8.5%".
// Rates are 0 to 10000 bps (billing.MaxTaxRateBps).
func taxRate(bps int) string {
	if bps%100 == 0 {
		return fmt.Sprintf("%d%%", bps/100)
	}
	return strings.TrimRight(fmt.Sprintf("%d.%02d", bps/100, bps%100), "0") + "%"
}

// view is what every page template gets.
type view struct {
	Title string
	Nav   string
	// Locale formats money, numbers and dates (localeOf).
	Locale  string
	CSRF    string
	User    *tenancy.User
	Tenant  tenancy.Tenant
	Role    tenancy.Role
	Tenants []tenancy.TenantMembership
	Can     map[string]bool
	Flash   string
	// Unread counts the tenant's unread notifications, for the
	// navigation; ShowUnread says whether the member may see them.
	Unread     int64
	ShowUnread bool
	Errors     map[string]string
	FormError  string
	Data       any
}

// navOf maps a page to the navigation entry it belongs to.
func navOf(name string) string {
	for _, prefix := range []string{"invoice", "customer", "billing", "ticket", "module", "contract", "event", "webhook", "tenants"} {
		if strings.HasPrefix(name, prefix) {
			return prefix
		}
	}
	return name
}

// render writes page name with status.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, rq *request, status int, name, title string, data any) error {
	return h.renderForm(w, r, rq, status, name, title, data, nil)
}

// renderForm writes page name with the refused fields of err, if any,
// next to their inputs (and the problem's detail above the form).
func (h *Handler) renderForm(w http.ResponseWriter, r *http.Request, rq *request, status int, name, title string, data any, err error) error {
	t, perr := h.views.page(name)
	if perr != nil {
		return perr
	}
	v := view{Title: title, Nav: navOf(name), Data: data, Errors: map[string]string{}, Locale: localeOf(r),
		Flash: flashText(r.URL.Query().Get("done")), Can: map[string]bool{}}
	if rq != nil {
		v.CSRF = h.cfg.CSRF.Token(w, r, rq.binding())
		if rq.principal != nil {
			v.User = &rq.principal.User
			v.Tenants = rq.memberships
			v.Tenant, v.Role = rq.tenant, rq.membership.Role
			for _, p := range tenancy.Permissions() {
				v.Can[string(p)] = rq.can(p)
			}
			if rq.membership.TenantID != "" && rq.can(tenancy.PermNotificationsRead) {
				n, err := h.cfg.Notifications.UnreadCount(r.Context(), rq.membership.TenantID)
				if err != nil {
					// The page itself may be the report of this failure: show it without the count.
					h.cfg.Logger.Error().Err(err).Msg("portal: count unread notifications")
				} else {
					v.Unread, v.ShowUnread = n, true
				}
			}
		}
	}
	if err != nil {
		var ie *field.InvalidError
		if errors.As(err, &ie) {
			for _, fe := range ie.Errors() {
				v.Errors[fe.Field] = fe.Message
			}
			v.FormError = "Please correct the fields marked below."
		} else {
			v.FormError = httpapi.ProblemFor(err).Detail
		}
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// flashText is the message a redirect after a successful form asks for.
func flashText(done string) string {
	return map[string]string{
		"created":         "Saved.",
		"finalized":       "The invoice is finalized.",
		"voided":          "The invoice is void.",
		"writtenoff":      "The invoice is written off as uncollectible.",
		"deleted_invoice": "The draft is deleted.",
		"sent":            "The invoice is on its way to the customer by email: the emails below say when the mail server took it.",
		"paid":            "The payment is recorded.",
		"toggled":         "The module is switched.",
		"submitted":       "Your request is submitted.",
		"cancelled":       "The request is cancelled.",
		"commented":       "Your comment is added.",
		"moved":           "The ticket's status is changed.",
		"rated":           "Thank you: your rating is recorded.",
		"read":            "The notification is marked read.",
		"allread":         "All notifications are marked read.",
		"updated":         "The endpoint is saved.",
		"tested":          "A test event is on its way: its delivery is listed below.",
		"retried":         "The delivery's next attempt is due now.",
		"deleted":         "The endpoint is deleted.",
	}[done]
}

// errorData is the error page's content.
type errorData struct {
	Status int
	Detail string
}

// fail renders err as an error page with its problem's status and detail;
// what the API would answer 500 is logged and shown as nothing internal.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, rq *request, err error) {
	p := httpapi.ProblemFor(err)
	if p.Status >= 500 {
		h.cfg.Logger.Error().Err(err).Str("path", r.URL.Path).Msg("portal: request failed")
	}
	detail := p.Detail
	if p.Code == httpapi.CodeCSRFFailed {
		detail = "This form has expired or did not come from this site (" + p.Detail + "). Go back, reload the page and try again."
	}
	if rerr := h.render(w, r, rq, p.Status, "error", http.StatusText(p.Status), errorData{Status: p.Status, Detail: detail}); rerr != nil {
		h.cfg.Logger.Error().Err(rerr).Msg("portal: render error page")
		http.Error(w, http.StatusText(p.Status), p.Status)
	}
}

func (h *Handler) stylesheet(w http.ResponseWriter, r *http.Request, rq *request) error {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(h.views.css)
	return nil
}
