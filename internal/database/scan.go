package database

import (
	"database/sql"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// Scan on Postgres (direct.go) reads each row with pgx's Rows.Scan into
// one cell per column (cell.go): text, integers, booleans, timestamps and
// bytea bound for a field of the matching Go type are decoded by pgx's
// own scan plans straight into the field, no value boxed into an
// interface on the way; any other column is handed to Bun's scanner as
// the value database/sql would hand it. Which cell reads which column —
// the plan — is worked out once for a destination type and its columns
// and kept, and so are the cells. It replaced rows.Values() and Bun's
// scanner for every column, with a plan made for every query. On
// BenchmarkScan (22 columns; median of five runs, interleaved) one row
// went from 3968 to 3656 B/op and 63 to 39 allocs/op, 57.5 → 54.5 µs of
// client CPU per query; 50 rows from 99322 to 49306 B/op and 2029 to 582
// allocs/op, 289 → 160 µs of client CPU, 295 → 191 µs per query.

// scanRows reads rows to the end into dest, as queryDirect describes, and
// closes them.
func scanRows(rows pgx.Rows, bdb *bun.DB, dest []any) error {
	defer rows.Close()
	many := len(dest) == 1 && isSlice(dest[0])
	if many {
		reflect.ValueOf(dest[0]).Elem().SetLen(0)
	}
	var s *rowScanner // made at the first row: a failed statement has no columns
	defer func() {
		if s != nil {
			s.release()
		}
	}()
	for rows.Next() {
		if s != nil && !many {
			continue // as Bun does: read to the end, where an error may wait
		}
		if s == nil {
			var err error
			if s, err = newRowScanner(bdb, rows.FieldDescriptions(), dest); err != nil {
				return err
			}
		}
		if err := s.scan(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if s == nil && !many {
		return sql.ErrNoRows
	}
	return nil
}

// rowScanner puts the rows of one query where dest wants them, by plan.
type rowScanner struct {
	plan  *plan
	slice reflect.Value // the slice dest points to, when plan.many
	cells []cell        // one per column, pointed at the current row
	dests []any         // the cells as pgx scans into them
}

// newRowScanner reads dest, as Scan takes it, against the columns of the
// rows to come.
func newRowScanner(bdb *bun.DB, cols []pgconn.FieldDescription, dest []any) (*rowScanner, error) {
	for _, d := range dest {
		if v := reflect.ValueOf(d); v.Kind() != reflect.Pointer || v.IsNil() {
			return nil, fmt.Errorf("database: scan into %T, not a pointer", d)
		}
	}
	p, err := planFor(bdb, cols, dest)
	if err != nil {
		return nil, err
	}
	s := p.scanner()
	switch {
	case p.many:
		s.slice = reflect.ValueOf(dest[0]).Elem()
	case p.row:
		s.point(reflect.ValueOf(dest[0]).Elem())
	default:
		for i, d := range dest {
			s.cells[i].v = reflect.ValueOf(d).Elem()
		}
	}
	return s, nil
}

// scanner returns a rowScanner of p's cells, pointing nowhere yet: one
// released by an earlier query when there is one. Cells made anew for
// every query were 1.9 kB and 3 allocations of BenchmarkScan/Row's 5.6 kB
// and 42 per query.
func (p *plan) scanner() *rowScanner {
	if s, ok := p.scanners.Get().(*rowScanner); ok {
		return s
	}
	s := &rowScanner{plan: p, cells: make([]cell, len(p.cells)), dests: make([]any, len(p.cells))}
	for i, cp := range p.cells {
		s.cells[i] = cell{field: cp.field, scan: cp.scan}
		s.dests[i] = s.cells[i].adapter(cp.kind)
	}
	return s
}

// release gives s back to its plan for another query, once it no longer
// points at this query's destinations.
func (s *rowScanner) release() {
	for i := range s.cells {
		s.cells[i].v, s.cells[i].row = reflect.Value{}, reflect.Value{}
	}
	s.slice = reflect.Value{}
	s.plan.scanners.Put(s)
}

// scan reads the current row of rows: into the next element of the slice
// destination, or into the single row's destinations.
func (s *rowScanner) scan(rows pgx.Rows) error {
	if s.plan.many {
		elem := nextElem(s.slice)
		if s.plan.row {
			s.point(reflect.Indirect(elem))
		} else {
			s.cells[0].v = elem
		}
	}
	return rows.Scan(s.dests...)
}

// point makes the cells put their columns into the fields of strct.
func (s *rowScanner) point(strct reflect.Value) {
	for i := range s.cells {
		c := &s.cells[i]
		c.row = strct
		if s.plan.cells[i].kind != kindBun {
			c.v = strct.FieldByIndex(c.field.Index)
		}
	}
}

// nextElem lengthens slice by one element and returns it, as Bun's Scan
// does: an element left in the slice's capacity is reused as it is (a
// pointer, made when nil, to the value it points to), else a zero one is
// added.
func nextElem(slice reflect.Value) reflect.Value {
	n := slice.Len()
	if n == slice.Cap() {
		slice.Grow(1) // zeroes the room it adds
	}
	slice.SetLen(n + 1)
	elem := slice.Index(n)
	if elem.Kind() == reflect.Pointer && elem.IsNil() {
		elem.Set(reflect.New(elem.Type().Elem()))
	}
	return elem
}

// plan is how the rows of a query go into its destinations: their shape
// and, per column, the cell that reads it. It depends only on the
// destinations' types, the columns and the Bun tables, so plans keeps it
// for the next query of the same.
type plan struct {
	cols  []column       // the columns it was made for
	types []reflect.Type // the destinations' types it was made for
	many  bool           // one destination, a slice: one element per row
	row   bool           // a row is a Bun row struct, filled by column name
	cells []cellPlan     // one per column
	// scanners are rowScanners of the plan that no query is using.
	scanners sync.Pool
}

// column is what a plan depends on of a result column.
type column struct {
	name string
	oid  uint32
}

// cellPlan is how one column is read.
type cellPlan struct {
	kind  cellKind
	field *schema.Field      // the row's field of the column, for a row struct
	scan  schema.ScannerFunc // Bun's scanner of the destination, for a scalar
}

// maxPlans bounds the plans kept. The stores read a few dozen shapes of
// row; should something make plans without end (a bound query of
// varying columns), they are dropped at the bound and kept anew.
const maxPlans = 1024

// plans keeps plans by the dialect (the Bun tables) and the type of the
// first destination, with the variants for different columns or further
// destinations side by side. Making a plan for every query was 4.5 % of
// the bytes GET invoice allocated (bench --profile, heap: 16.5 of 366 MB).
var plans = struct {
	sync.RWMutex
	m map[planKey][]*plan
	n int // plans in m
}{m: make(map[planKey][]*plan)}

// planKey is the key of plans.
type planKey struct {
	dialect schema.Dialect
	dest    reflect.Type
}

// planFor returns the plan for dest and cols: a kept one, else a new one,
// which it keeps.
func planFor(bdb *bun.DB, cols []pgconn.FieldDescription, dest []any) (*plan, error) {
	key := planKey{dialect: bdb.Dialect()}
	if len(dest) > 0 {
		key.dest = reflect.TypeOf(dest[0])
	}
	plans.RLock()
	for _, p := range plans.m[key] {
		if p.fits(cols, dest) {
			plans.RUnlock()
			return p, nil
		}
	}
	plans.RUnlock()
	p, err := newPlan(bdb, cols, dest)
	if err != nil {
		return nil, err
	}
	plans.Lock()
	if plans.n == maxPlans {
		clear(plans.m)
		plans.n = 0
	}
	plans.m[key] = append(plans.m[key], p)
	plans.n++
	plans.Unlock()
	return p, nil
}

// fits reports whether p was made for cols and the types of dest.
func (p *plan) fits(cols []pgconn.FieldDescription, dest []any) bool {
	if len(cols) != len(p.cols) || len(dest) != len(p.types) {
		return false
	}
	for i, c := range cols {
		if c.Name != p.cols[i].name || c.DataTypeOID != p.cols[i].oid {
			return false
		}
	}
	for i, d := range dest {
		if reflect.TypeOf(d) != p.types[i] {
			return false
		}
	}
	return true
}

// newPlan works out how the rows of cols go into dest, pointers all: a
// Bun row struct (or a slice of them) is filled by column name, anything
// else column by column in order.
func newPlan(bdb *bun.DB, cols []pgconn.FieldDescription, dest []any) (*plan, error) {
	p := &plan{cols: make([]column, len(cols)), types: make([]reflect.Type, len(dest))}
	for i, c := range cols {
		p.cols[i] = column{name: c.Name, oid: c.DataTypeOID}
	}
	for i, d := range dest {
		p.types[i] = reflect.TypeOf(d)
	}
	if len(dest) == 1 {
		t := p.types[0].Elem()
		if isSlice(dest[0]) {
			p.many, t = true, t.Elem()
			if t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
		}
		if isRow(t) {
			p.row = true
			return p, p.fieldCells(bdb.Table(t), cols)
		}
	}
	if len(dest) != len(cols) {
		return nil, fmt.Errorf("database: %d destinations for %d columns", len(dest), len(cols))
	}
	for i, t := range p.types {
		t = t.Elem()
		if p.many {
			t = t.Elem()
		}
		p.cells = append(p.cells, cellPlan{kind: kindOf(t, cols[i].DataTypeOID), scan: schema.Scanner(t)})
	}
	return p, nil
}

// fieldCells plans the cells of a row struct of table t: each column into
// its field.
func (p *plan) fieldCells(t *schema.Table, cols []pgconn.FieldDescription) error {
	p.cells = make([]cellPlan, len(cols))
	for i, c := range cols {
		f := t.LookupField(c.Name)
		if f == nil {
			return fmt.Errorf("database: %s has no column %q", t, c.Name)
		}
		p.cells[i] = cellPlan{kind: kindBun, field: f}
		if plainField(t.Type, f) {
			p.cells[i].kind = kindOf(f.StructField.Type, c.DataTypeOID)
		}
	}
	return nil
}

// plainField reports whether a cell may fill f in place: Bun scans it
// with its plain scanner for f's Go type (not a tag's, such as msgpack,
// array or hstore), and reaches it through no embedded pointer, which
// Bun leaves nil for a NULL.
func plainField(row reflect.Type, f *schema.Field) bool {
	if reflect.ValueOf(f.Scan).Pointer() != reflect.ValueOf(schema.Scanner(f.StructField.Type)).Pointer() {
		return false
	}
	t := row
	for _, i := range f.Index[:len(f.Index)-1] {
		if t = t.Field(i).Type; t.Kind() == reflect.Pointer {
			return false
		}
	}
	return true
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	scannerType = reflect.TypeFor[sql.Scanner]()
)

// isRow reports whether t is a struct scanned column by column into its
// fields (a Bun row type) rather than as one value.
func isRow(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t != timeType && !reflect.PointerTo(t).Implements(scannerType)
}
