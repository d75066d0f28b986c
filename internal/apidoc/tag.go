package apidoc

import (
	"strings"
)

// rule is one rule of a validate tag: "max=200" is {max 200}.
type rule struct {
	name, param string
}

// tag is a parsed validate tag: the rules of the value itself and, after
// dive, those of its items (a map's values), with a map's key rules
// (keys…endkeys) in keys.
type tag struct {
	rules []rule
	keys  []rule
	items *tag // nil without dive
}

// parseTag parses a validate tag such as
// "max=50,dive,keys,min=1,max=40,endkeys,max=500".
func parseTag(s string) tag {
	if s == "" || s == "-" {
		return tag{}
	}
	return parseRules(strings.Split(s, ","))
}

func parseRules(parts []string) tag {
	var t tag
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		if p == "dive" {
			rest := parts[i+1:]
			var keys []rule
			if len(rest) > 0 && rest[0] == "keys" {
				end := indexOf(rest, "endkeys")
				if end < 0 {
					end = len(rest)
				}
				for _, k := range rest[1:end] {
					keys = append(keys, parseRule(k))
				}
				rest = rest[min(end+1, len(rest)):]
			}
			t.keys = keys
			items := parseRules(rest)
			t.items = &items
			return t
		}
		t.rules = append(t.rules, parseRule(p))
	}
	return t
}

func parseRule(s string) rule {
	name, param, _ := strings.Cut(s, "=")
	return rule{name: name, param: param}
}

func indexOf(parts []string, s string) int {
	for i, p := range parts {
		if p == s {
			return i
		}
	}
	return -1
}

// has reports whether rules holds a rule of the given name.
func has(rules []rule, name string) bool {
	for _, r := range rules {
		if r.name == name {
			return true
		}
	}
	return false
}

// required reports whether rules make the value required: required, and
// not omitempty (which lets the zero value through).
func required(rules []rule) bool {
	return has(rules, "required") && !omitted(rules)
}

// omitted reports whether rules skip the zero value.
func omitted(rules []rule) bool {
	return has(rules, "omitempty") || has(rules, "omitnil") || has(rules, "omitzero")
}

// oneOf returns the values of a oneof rule (words, or 'quoted words').
func oneOf(param string) []string {
	var out []string
	for len(param) > 0 {
		param = strings.TrimLeft(param, " ")
		if param == "" {
			break
		}
		if param[0] == '\'' {
			end := strings.IndexByte(param[1:], '\'')
			if end < 0 {
				out = append(out, param[1:])
				break
			}
			out = append(out, param[1:1+end])
			param = param[2+end:]
			continue
		}
		word, rest, _ := strings.Cut(param, " ")
		out = append(out, word)
		param = rest
	}
	return out
}

// structural reports whether a rule says nothing about the value itself:
// presence, or a condition on other fields the document cannot state.
func structural(name string) bool {
	switch name {
	case "required", "omitempty", "omitnil", "omitzero", "-":
		return true
	}
	for _, prefix := range []string{"required_", "excluded_", "skip_unless"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return name == "excluded_if"
}
