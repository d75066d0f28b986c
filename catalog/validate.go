package catalog

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/field"
)

// ValidationError reports every problem found in a catalog, so that an operator
// fixes a catalog file in one pass. Callers find it with errors.As.
type ValidationError struct {
	// Problems lists the problems in document order, app by app and plan by
	// plan: for each, what its values break on their own, then what is wrong
	// with their references to the rest of the catalog.
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

// document is the content of a catalog file. Its tags, and those of the
// types it holds, are the rules of each value.
type document struct {
	Apps  []App  `json:"apps"`
	Plans []Plan `json:"plans" validate:"min=1"`
}

// validator collects problems while walking a catalog.
type validator struct {
	problems []Problem
	shaped   map[string]bool   // paths whose values break their tags
	modules  map[string]Module // every module id declared, for plan references
}

// validate checks apps and plans as a whole; it returns a *ValidationError or
// nil. Each app and plan is checked against its tags, then against the rest
// of the catalog.
func validate(apps []App, plans []Plan) error {
	v := &validator{shaped: make(map[string]bool), modules: make(map[string]Module)}
	v.apps(apps)
	v.shape("", document{Plans: plans})
	v.plans(plans)
	if len(v.problems) > 0 {
		return &ValidationError{Problems: v.problems}
	}
	return nil
}

// shape records what the tags of x refuse (field.Check), at paths below
// prefix.
func (v *validator) shape(prefix string, x any) {
	var ie *field.InvalidError
	if !errors.As(field.Check(x), &ie) {
		return
	}
	for _, fe := range ie.Errors() {
		path := strings.TrimPrefix(prefix+"."+fe.Field, ".")
		v.problems = append(v.problems, Problem{Path: path, Message: fe.Message})
		v.shaped[path] = true
	}
}

// addf records a problem at path, unless its value breaks its tags: what is
// wrong with a value on its own is what its path reports.
func (v *validator) addf(path, format string, args ...any) {
	if !v.shaped[path] {
		v.problems = append(v.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
	}
}

func (v *validator) apps(apps []App) {
	appSeen := make(map[string]string)    // app id -> path of first use
	moduleSeen := make(map[string]string) // module id -> path of first use
	for i, a := range apps {
		path := fmt.Sprintf("apps[%d]", i)
		trimmed := a
		trimmed.Name, trimmed.Modules = strings.TrimSpace(a.Name), slices.Clone(a.Modules)
		for j := range trimmed.Modules {
			trimmed.Modules[j].Name = strings.TrimSpace(a.Modules[j].Name)
		}
		v.shape(path, trimmed) // a name of spaces is no name
		appOK := v.id(path+".id", a.ID, "app", appSeen)
		for j, m := range a.Modules {
			mpath := fmt.Sprintf("%s.modules[%d]", path, j)
			if m.ID == "" {
				continue
			}
			if appOK {
				prefix := a.ID + "."
				name, found := strings.CutPrefix(m.ID, prefix)
				switch {
				case !found:
					v.addf(mpath+".id", "%q must start with its app id %q", m.ID, prefix)
				case !validID(name):
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
	seen := make(map[string]string)
	for i, p := range plans {
		v.plan(fmt.Sprintf("plans[%d]", i), p, seen)
	}
}

func (v *validator) plan(path string, p Plan, seen map[string]string) {
	trimmed := p
	trimmed.Name = strings.TrimSpace(p.Name)
	v.shape(path, trimmed)
	v.id(path+".id", p.ID, "plan", seen)

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
		apath := fmt.Sprintf("%s.add_ons[%d].module", path, j)
		switch {
		case !v.known(apath, a.Module):
		case included[a.Module]:
			v.addf(apath, "module %q is already included in the plan", a.Module)
		case sold[a.Module]:
			v.addf(apath, "module %q offered twice", a.Module)
		}
		sold[a.Module] = true
	}

	v.limits(path, p)
	v.overage(path, p)
}

// mustNotBeNegative is the problem of a negative limit or price, in the
// words of the tags' min=0 on the other amounts. The entries of Limits and
// Overage are checked here, not by tags: field reports a map once, on the
// map, where a catalog names every entry that is wrong.
const mustNotBeNegative = "must be at least 0"

func (v *validator) limits(path string, p Plan) {
	for _, f := range slices.Sorted(maps.Keys(p.Limits)) {
		lpath := fmt.Sprintf("%s.limits[%q]", path, f)
		limit := p.Limits[f]
		switch {
		case !KnownFeature(f):
			v.addf(lpath, "unknown feature (want one of %s)", strings.Join(Features(), ", "))
		case limit == nil:
		case *limit < 0:
			v.addf(lpath, mustNotBeNegative)
		case f == FeatureSeats && *limit < int64(p.IncludedSeats):
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
		limit, limited := p.Limits[f]
		switch {
		case !Metered(f):
			v.addf(opath, "not a metered feature (want %s or %s)", FeatureInvoices, FeatureTickets)
		case p.Overage[f] < 0:
			v.addf(opath, mustNotBeNegative)
		case limited && limit == nil:
			v.addf(opath, "feature is unlimited in this plan, so overage never applies")
		}
	}
}

// id checks the form of an app or plan id, whose presence and length are
// its tags', and records it in seen; it reports whether the id is usable as
// a prefix or reference.
func (v *validator) id(path, id, kind string, seen map[string]string) bool {
	switch {
	case v.shaped[path]:
		return false
	case !validID(id):
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

// known reports whether id names a declared module, recording a problem if
// not.
func (v *validator) known(path, id string) bool {
	if _, ok := v.modules[id]; !ok {
		v.addf(path, "unknown module %q", id)
		return false
	}
	return true
}

// idRule describes validID for error messages.
const idRule = "lower-case letters, digits, '-' or '_', starting with a letter"

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
