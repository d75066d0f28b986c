package catalog

import (
	"fmt"
	"github.com/tenantkit/tenantkit/internal/iso4217"
	"maps"
	"slices"
	"strings"
)

// ValidationError reports every problem found in a catalog, so that an operator
// fixes a catalog file in one pass. Callers find it with errors.As.
type ValidationError struct {
	// Problems lists the problems in document order.
	Problems []Problem
}

// Problem is one reason a catalog is invalid.
type Problem struct {
	// Path locates the offending value, e.g. `plans[1].modules[0]` or
	// `plans[0].limits["seats"]`.
	Path string `json:"path"`
	// Message says what is wrong with it.
	Message string `json:"message"`
}

// String returns "path: message".
func (p Problem) String() string { return p.Path + ": " + p.Message }

// Error lists the problems on one line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	switch n := len(e.Problems); n {
	case 1:
		b.WriteString("invalid catalog: ")
	default:
		fmt.Fprintf(&b, "invalid catalog (%d problems): ", n)
	}
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// maxIDLen bounds ids, which travel in URLs, query parameters and logs.
const maxIDLen = 64

// validator collects problems while walking a catalog.
type validator struct {
	problems []Problem
	modules  map[string]Module // every module id declared, for plan references
}

func (v *validator) addf(path, format string, args ...any) {
	v.problems = append(v.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// validate checks apps and plans as a whole; it returns a *ValidationError or
// nil.
func validate(apps []App, plans []Plan) error {
	v := &validator{modules: make(map[string]Module)}
	v.apps(apps)
	v.plans(plans)
	if len(v.problems) > 0 {
		return &ValidationError{Problems: v.problems}
	}
	return nil
}

func (v *validator) apps(apps []App) {
	appSeen := make(map[string]string)    // app id -> path of first use
	moduleSeen := make(map[string]string) // module id -> path of first use
	for i, a := range apps {
		path := fmt.Sprintf("apps[%d]", i)
		appOK := v.id(path+".id", a.ID, "app", appSeen)
		v.name(path+".name", a.Name)
		for j, m := range a.Modules {
			mpath := fmt.Sprintf("%s.modules[%d]", path, j)
			v.name(mpath+".name", m.Name)
			if m.ID == "" {
				v.addf(mpath+".id", "required")
				continue
			}
			if appOK {
				prefix := a.ID + "."
				name, found := strings.CutPrefix(m.ID, prefix)
				switch {
				case !found:
					v.addf(mpath+".id", "%q must start with its app id %q", m.ID, prefix)
				case !validID(name) || len(m.ID) > maxIDLen:
					v.addf(mpath+".id", "%q must be %q followed by %s", m.ID, prefix, idRule)
				}
			}
			if first, dup := moduleSeen[m.ID]; dup {
				v.addf(mpath+".id", "duplicate module id %q (first at %s)", m.ID, first)
				continue
			}
			moduleSeen[m.ID] = mpath
			v.modules[m.ID] = m
		}
	}
}

func (v *validator) plans(plans []Plan) {
	if len(plans) == 0 {
		v.addf("plans", "at least one plan is required")
	}
	seen := make(map[string]string)
	for i, p := range plans {
		v.plan(fmt.Sprintf("plans[%d]", i), p, seen)
	}
}

func (v *validator) plan(path string, p Plan, seen map[string]string) {
	v.id(path+".id", p.ID, "plan", seen)
	v.name(path+".name", p.Name)
	if !validCurrency(p.Currency) {
		v.addf(path+".currency", "%q is not an active ISO 4217 currency code (upper case, with a minor unit)", p.Currency)
	}
	if p.Interval != IntervalMonth && p.Interval != IntervalYear {
		v.addf(path+".interval", "%q is not %q or %q", p.Interval, IntervalMonth, IntervalYear)
	}
	v.nonNegative(path+".base_price", p.BasePrice)
	v.nonNegative(path+".included_seats", int64(p.IncludedSeats))
	v.nonNegative(path+".seat_price", p.SeatPrice)

	included := make(map[string]bool, len(p.Modules))
	for j, id := range p.Modules {
		mpath := fmt.Sprintf("%s.modules[%d]", path, j)
		switch {
		case !v.known(mpath, id):
		case included[id]:
			v.addf(mpath, "module %q listed twice", id)
		}
		included[id] = true
	}

	sold := make(map[string]bool, len(p.AddOns))
	for j, a := range p.AddOns {
		apath := fmt.Sprintf("%s.add_ons[%d]", path, j)
		switch {
		case !v.known(apath+".module", a.Module):
		case included[a.Module]:
			v.addf(apath+".module", "module %q is already included in the plan", a.Module)
		case sold[a.Module]:
			v.addf(apath+".module", "module %q offered twice", a.Module)
		}
		sold[a.Module] = true
		v.nonNegative(apath+".price", a.Price)
	}

	v.limits(path, p)
	v.overage(path, p)
}

func (v *validator) limits(path string, p Plan) {
	for _, f := range slices.Sorted(maps.Keys(p.Limits)) {
		lpath := fmt.Sprintf("%s.limits[%q]", path, f)
		if !KnownFeature(f) {
			v.addf(lpath, "unknown feature (want one of %s)", strings.Join(Features(), ", "))
			continue
		}
		limit := p.Limits[f]
		if limit == nil {
			continue
		}
		v.nonNegative(lpath, *limit)
		if f == FeatureSeats && *limit >= 0 && *limit < int64(p.IncludedSeats) {
			v.addf(lpath, "%d is below included_seats %d", *limit, p.IncludedSeats)
		}
	}
	for _, f := range Features() {
		if _, ok := p.Limits[f]; !ok {
			v.addf(path+".limits", "missing feature %q (use null for unlimited)", f)
		}
	}
}

func (v *validator) overage(path string, p Plan) {
	for _, f := range slices.Sorted(maps.Keys(p.Overage)) {
		opath := fmt.Sprintf("%s.overage[%q]", path, f)
		if !Metered(f) {
			v.addf(opath, "not a metered feature (want %s or %s)", FeatureInvoices, FeatureTickets)
			continue
		}
		v.nonNegative(opath, p.Overage[f])
		if limit, ok := p.Limits[f]; ok && limit == nil {
			v.addf(opath, "feature is unlimited in this plan, so overage never applies")
		}
	}
}

// id checks an app or plan id and records it in seen; it reports whether the id
// is usable as a prefix or reference.
func (v *validator) id(path, id, kind string, seen map[string]string) bool {
	switch {
	case id == "":
		v.addf(path, "required")
		return false
	case !validID(id) || len(id) > maxIDLen:
		v.addf(path, "%q must be %s", id, idRule)
		return false
	}
	if first, dup := seen[id]; dup {
		v.addf(path, "duplicate %s id %q (first at %s)", kind, id, first)
		return false
	}
	seen[id] = path
	return true
}

func (v *validator) name(path, name string) {
	if strings.TrimSpace(name) == "" {
		v.addf(path, "required")
	}
}

func (v *validator) nonNegative(path string, n int64) {
	if n < 0 {
		v.addf(path, "%d is negative", n)
	}
}

// known reports whether id names a declared module, recording a problem if not.
func (v *validator) known(path, id string) bool {
	if id == "" {
		v.addf(path, "required")
		return false
	}
	if _, ok := v.modules[id]; !ok {
		v.addf(path, "unknown module %q", id)
		return false
	}
	return true
}

// idRule describes validID for error messages.
const idRule = "lower-case letters, digits, '-' or '_', starting with a letter, at most 64 characters"

// validID reports whether s is a lower-case letter followed by lower-case
// letters, digits, '-' or '_'. Ids stay this plain because they appear in URLs,
// query parameters and metric labels.
func validID(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validCurrency reports whether s is an active ISO 4217 currency with a
// minor unit (list one): a plan priced in a retired code or in gold could
// never be invoiced.
func validCurrency(s string) bool {
	c, ok := iso4217.Lookup(s)
	return ok && c.HasMinorUnit()
}
