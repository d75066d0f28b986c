package database

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// maxTexts bounds the query texts intern keeps. Every store builds its
// statements from a fixed set of shapes (a few hundred in all); a text
// that varies with its values (an IN list's length, an inlined literal)
// is kept until the bound, and after it made into a string as before.
const maxTexts = 4096

// texts holds each statement's text once, with the name it is prepared
// under in pipelines (statementName). Bun writes a query's text into a
// buffer; making a string of it on every statement was 5.7 % of the bytes
// a comment on a ticket allocated (bench --profile, heap), and hashing it
// into its pipeline name about a microsecond per pipelined statement.
var texts = struct {
	sync.RWMutex
	m map[string]*text
}{m: make(map[string]*text)}

type text struct {
	query string
	// name is the statement's name in pipelines: "tk_" and 24 hex digits
	// of the query's SHA-256.
	name string
}

// intern returns the text b holds as a string, without allocating when a
// statement of that text was seen before.
func intern(b []byte) string {
	texts.RLock()
	t, ok := texts.m[string(b)] // no allocation: the compiler looks up by the bytes
	texts.RUnlock()
	if ok {
		return t.query
	}
	t = &text{query: string(b), name: nameOf(b)}
	texts.Lock()
	if len(texts.m) < maxTexts {
		texts.m[t.query] = t
	}
	texts.Unlock()
	return t.query
}

// statementName names a pipelined statement on its connection, by its
// text: statements of the same text share their preparation.
func statementName(query string) string {
	texts.RLock()
	t, ok := texts.m[query]
	texts.RUnlock()
	if ok {
		return t.name
	}
	return nameOf([]byte(query))
}

func nameOf(query []byte) string {
	sum := sha256.Sum256(query)
	return "tk_" + hex.EncodeToString(sum[:12])
}
