package database

import (
	"bytes"
	"reflect"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun/schema"
)

// cell is where one column of the current row goes. pgx scans the column
// into one of the cell's adapters (textCell … valueCell): each implements
// the one pgtype interface through which pgx's scan plan for that column
// type hands over its value, and puts the value into v as Bun's scanner
// of v would.
type cell struct {
	v     reflect.Value      // the destination: a field, a scalar, a slice element
	row   reflect.Value      // the row struct field belongs to
	field *schema.Field      // the row's field of the column, for a row struct
	scan  schema.ScannerFunc // Bun's scanner of v, for a scalar
}

// cellKind is which adapter of a cell reads a column.
type cellKind uint8

const (
	kindBun   cellKind = iota // any column into anything: valueCell
	kindText                  // text, varchar, char, name into a string: textCell
	kindInt                   // smallint, integer, bigint into an int64, int or int32: intCell
	kindBool                  // boolean into a bool: boolCell
	kindTime                  // timestamptz, timestamp into a time.Time: timeCell
	kindBytes                 // bytea into a []byte: bytesCell
)

var (
	stringType = reflect.TypeFor[string]()
	int64Type  = reflect.TypeFor[int64]()
	intType    = reflect.TypeFor[int]()
	int32Type  = reflect.TypeFor[int32]()
	boolType   = reflect.TypeFor[bool]()
	bytesType  = reflect.TypeFor[[]byte]()
)

// kindOf is the kind of cell that reads a column of type oid into a
// destination of type t (or *t: Bun scans a pointer as the value it
// points to, see target) with Bun's plain scanner for t. Only exact Go
// types: a named type may have methods Bun would use.
func kindOf(t reflect.Type, oid uint32) cellKind {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch oid {
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID, pgtype.UnknownOID:
		if t == stringType {
			return kindText
		}
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
		if t == int64Type || t == intType || t == int32Type {
			return kindInt
		}
	case pgtype.BoolOID:
		if t == boolType {
			return kindBool
		}
	case pgtype.TimestamptzOID, pgtype.TimestampOID:
		if t == timeType {
			return kindTime
		}
	case pgtype.ByteaOID:
		if t == bytesType {
			return kindBytes
		}
	}
	return kindBun
}

// adapter is c as pgx scans a column of kind k into it.
func (c *cell) adapter(k cellKind) any {
	switch k {
	case kindText:
		return (*textCell)(c)
	case kindInt:
		return (*intCell)(c)
	case kindBool:
		return (*boolCell)(c)
	case kindTime:
		return (*timeCell)(c)
	case kindBytes:
		return (*bytesCell)(c)
	}
	return (*valueCell)(c)
}

// target is where a value goes, after NULL is dealt with as Bun's
// scanners deal with it: valid is false for NULL, which leaves the zero
// value in v, or for a pointer leaves nil as nil but replaces a set
// pointer by one to a new zero value. For a value, a nil pointer is
// given a new value to point to, and the target is that value.
func (c *cell) target(valid bool) (reflect.Value, bool) {
	v := c.v
	if v.Kind() != reflect.Pointer {
		if !valid {
			v.SetZero()
		}
		return v, valid
	}
	if valid == v.IsNil() { // a value for nil, or NULL for a set pointer
		v.Set(reflect.New(v.Type().Elem()))
	}
	return v.Elem(), valid
}

// bun hands src to Bun's scanner of the destination, as Bun's Scan does.
func (c *cell) bun(src any) error {
	if c.field != nil {
		return c.field.ScanValue(c.row, src)
	}
	return c.scan(c.v, src)
}

type (
	textCell  cell // a cell as a pgtype.TextScanner
	intCell   cell // a cell as a pgtype.Int64Scanner
	boolCell  cell // a cell as a pgtype.BoolScanner
	timeCell  cell // a cell as a pgtype.TimestamptzScanner and TimestampScanner
	bytesCell cell // a cell as a pgtype.BytesScanner
	// valueCell is a cell as a sql.Scanner. For it pgx decodes the column
	// as pgx's stdlib does for database/sql (DecodeDatabaseSQLValue):
	// integers as int64, floats as float64, JSON as []byte, unknown types
	// as text, NULL as nil.
	valueCell cell
)

// ScanText implements pgtype.TextScanner.
func (c *textCell) ScanText(t pgtype.Text) error {
	if v, ok := (*cell)(c).target(t.Valid); ok {
		v.SetString(t.String)
	}
	return nil
}

// ScanInt64 implements pgtype.Int64Scanner; a narrower destination keeps
// the low bits, as Bun's scanner does.
func (c *intCell) ScanInt64(n pgtype.Int8) error {
	if v, ok := (*cell)(c).target(n.Valid); ok {
		v.SetInt(n.Int64)
	}
	return nil
}

// ScanBool implements pgtype.BoolScanner.
func (c *boolCell) ScanBool(b pgtype.Bool) error {
	if v, ok := (*cell)(c).target(b.Valid); ok {
		v.SetBool(b.Bool)
	}
	return nil
}

// ScanTimestamptz implements pgtype.TimestamptzScanner.
func (c *timeCell) ScanTimestamptz(t pgtype.Timestamptz) error {
	return c.set(t.Time, t.InfinityModifier, t.Valid)
}

// ScanTimestamp implements pgtype.TimestampScanner.
func (c *timeCell) ScanTimestamp(t pgtype.Timestamp) error {
	return c.set(t.Time, t.InfinityModifier, t.Valid)
}

// set puts a timestamp into the cell's time.Time. An infinite one goes to
// Bun's scanner as database/sql has it, "infinity" or "-infinity" (which
// Bun refuses).
func (c *timeCell) set(t time.Time, inf pgtype.InfinityModifier, valid bool) error {
	if valid && inf != pgtype.Finite {
		return (*cell)(c).bun(inf.String())
	}
	if v, ok := (*cell)(c).target(valid); ok {
		*v.Addr().Interface().(*time.Time) = t
	}
	return nil
}

// ScanBytes implements pgtype.BytesScanner: b is nil for NULL, and pgx's
// memory, which the destination gets a copy of.
func (c *bytesCell) ScanBytes(b []byte) error {
	if v, ok := (*cell)(c).target(b != nil); ok {
		v.SetBytes(bytes.Clone(b))
	}
	return nil
}

// Scan implements sql.Scanner: src goes to Bun's scanner.
func (c *valueCell) Scan(src any) error {
	return (*cell)(c).bun(src)
}
