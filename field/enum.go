package field

import (
	"fmt"
	"slices"
)

// RegisterEnum makes name a rule of `validate` tags: a string must be one
// of values. It is oneof for lists too long to write in a tag, and too
// much a domain's own for this package to hold: package event registers
// "event_type" with the catalog of event types. A value outside the list
// is refused with code Invalid and `unknown <what> "value"`.
//
// Call it from an init function: rules are fixed once Check has run, and
// RegisterEnum panics after that, as it does for a name already taken.
func RegisterEnum(name string, values []string, what string) {
	enumsMu.Lock()
	defer enumsMu.Unlock()
	if enumsFrozen {
		panic("field.RegisterEnum(" + name + ") after the first Check: call it from an init function")
	}
	if _, taken := rules[name]; taken {
		panic("field.RegisterEnum: rule " + name + " exists")
	}
	sorted := slices.Sorted(slices.Values(values))
	rules[name] = rule{
		valid: str(func(s string) bool {
			_, found := slices.BinarySearch(sorted, s)
			return found
		}),
		explain: func(v any, _ string) (string, string) {
			s, _ := v.(string)
			return Invalid, fmt.Sprintf("unknown %s %q", what, Truncate(s, 64))
		},
	}
	enums[name] = sorted
}

// Enum returns the values of a rule RegisterEnum made, sorted, and whether
// name is such a rule; the OpenAPI document states them as an enum.
func Enum(name string) ([]string, bool) {
	enumsMu.Lock()
	defer enumsMu.Unlock()
	values, ok := enums[name]
	return slices.Clone(values), ok
}
