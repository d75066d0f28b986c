package tenantkit_test

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The walks of docs/architecture.md ("Two requests, file by file"): each
// step is a line `N. \`file\` (\`Symbol\`) — …`, naming the file a reader
// opens and what to read there.
var (
	walkHeading = regexp.MustCompile("^### (Read|Write): `([^`]+)` \\((\\d+) files\\)$")
	walkStep    = regexp.MustCompile("^(\\d+)\\. `([^`]+)` \\(`([A-Za-z_][A-Za-z0-9_.]*)`\\) — ")
)

// TestArchitectureWalks keeps the walks of docs/architecture.md true: each
// names at most 12 files, each opened once, and every step's symbol is
// defined in its file, so that moving a handler, a service method or a
// store's query out of the file a walk names fails here until the walk
// follows it.
func TestArchitectureWalks(t *testing.T) {
	f, err := os.Open("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type walk struct {
		name  string
		files int
		steps [][2]string // file, symbol
	}
	var walks []*walk
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := walkHeading.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[3])
			walks = append(walks, &walk{name: m[1] + " " + m[2], files: n})
			continue
		}
		if strings.HasPrefix(line, "## ") {
			walks = append(walks, nil) // a walk ends at the next section
			continue
		}
		if len(walks) == 0 || walks[len(walks)-1] == nil {
			continue
		}
		if m := walkStep.FindStringSubmatch(line); m != nil {
			w := walks[len(walks)-1]
			if n, _ := strconv.Atoi(m[1]); n != len(w.steps)+1 {
				t.Errorf("%s: step %d out of order", w.name, n)
			}
			w.steps = append(w.steps, [2]string{m[2], m[3]})
		}
	}
	var kinds = map[string]bool{}
	for _, w := range walks {
		if w == nil {
			continue
		}
		kinds[strings.Fields(w.name)[0]] = true
		t.Run(w.name, func(t *testing.T) {
			if len(w.steps) != w.files {
				t.Errorf("the heading says %d files, the walk has %d steps", w.files, len(w.steps))
			}
			if len(w.steps) > 12 {
				t.Errorf("%d files: a walk from route to SQL crosses at most 12", len(w.steps))
			}
			seen := map[string]bool{}
			for i, s := range w.steps {
				file, symbol := s[0], s[1]
				if seen[file] {
					t.Errorf("step %d opens %s again: each file is opened once", i+1, file)
				}
				seen[file] = true
				src, err := os.ReadFile(file)
				if err != nil {
					t.Errorf("step %d: %v", i+1, err)
					continue
				}
				if !defines(string(src), symbol) {
					t.Errorf("step %d: %s does not define %s", i+1, file, symbol)
				}
			}
		})
	}
	if !kinds["Read"] || !kinds["Write"] {
		t.Fatalf("docs/architecture.md should walk one read and one write endpoint; found %v", kinds)
	}
}

// defines reports whether src declares symbol: a function, a method
// (Type.Method) or a type.
func defines(src, symbol string) bool {
	var pattern string
	if typ, method, ok := strings.Cut(symbol, "."); ok {
		pattern = `(?m)^func \(\w+ \*?` + regexp.QuoteMeta(typ) + `(\[[^\]]*\])?\) ` + regexp.QuoteMeta(method) + `[\[(]`
	} else {
		pattern = `(?m)^(func (\(\w+ \*?\w+\) )?` + regexp.QuoteMeta(symbol) + `[\[(]|type ` + regexp.QuoteMeta(symbol) + ` |\t` + regexp.QuoteMeta(symbol) + ` +(struct|interface) )`
	}
	return regexp.MustCompile(pattern).MatchString(src)
}
