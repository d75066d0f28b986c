package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// New validates apps and plans and returns a catalog holding deep copies of
// them, indexed and digested. It returns a *ValidationError (wrapped) listing
// every problem found. Tests in other packages use it to build small catalogs.
func New(apps []App, plans []Plan) (*Catalog, error) {
	c, err := build(apps, plans)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return c, nil
}

// Parse decodes a catalog from JSON and validates it. Decoding is strict: an
// unknown field, a wrong type or trailing data is an error. An invalid catalog
// yields a wrapped *ValidationError.
func Parse(data []byte) (*Catalog, error) {
	c, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return c, nil
}

// Load reads and parses the catalog file at path, as Parse does. A file that
// cannot be read yields the os error, wrapped (errors.Is(err, fs.ErrNotExist)
// works).
func Load(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("catalog: load %s: %w", path, err)
	}
	c, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("catalog: load %s: %w", path, err)
	}
	return c, nil
}

// parse is Parse without the package prefix on its errors, so that Load can
// add its own context.
func parse(data []byte) (*Catalog, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("decode: empty document")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc document
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("decode: unexpected data after the catalog object")
	}
	return build(doc.Apps, doc.Plans)
}

// build validates, copies into canonical form, indexes and digests.
func build(apps []App, plans []Plan) (*Catalog, error) {
	if err := validate(apps, plans); err != nil {
		return nil, err
	}
	c := &Catalog{
		Apps:    make([]App, len(apps)),
		Plans:   make([]Plan, len(plans)),
		apps:    make(map[string]int, len(apps)),
		modules: make(map[string]moduleRef),
		plans:   make(map[string]int, len(plans)),
	}
	for i, a := range apps {
		c.Apps[i] = a.clone()
		c.apps[a.ID] = i
		for j, m := range a.Modules {
			c.modules[m.ID] = moduleRef{app: i, module: j}
		}
	}
	for i, p := range plans {
		c.Plans[i] = p.clone()
		c.plans[p.ID] = i
	}
	canonical, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	sum := sha256.Sum256(canonical)
	c.canonical = canonical
	c.digest = hex.EncodeToString(sum[:])
	return c, nil
}
