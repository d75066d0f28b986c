package httpapi

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
)

// Pagination bounds of every list endpoint.
const (
	defaultListLimit = 20
	maxListLimit     = 100
)

// cursorVersion prefixes the cursor payload, so the format can change later
// while old cursors are still recognised (and refused clearly).
const cursorVersion = "v1:"

// maxCursorIDLen bounds the id inside a cursor: the longest position a
// list hands out is a payment provider's event id (webhook.MaxEventIDLen);
// tenantkit's own ids are 30 characters.
const maxCursorIDLen = 128

// maxCursorLen is the longest encoded cursor decodeCursor will look at, so
// that an absurd query parameter is refused before any decoding work.
var maxCursorLen = base64.RawURLEncoding.EncodedLen(len(cursorVersion) + maxCursorIDLen)

// encodeCursor makes the opaque ?cursor= value that continues a list after
// the item with the given id. Lists are newest first and ids sort by
// creation time, so the id alone is the keyset position. The encoding is
// opaque on purpose: clients must not build cursors, which leaves us free
// to change what is inside.
func encodeCursor(id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorVersion + id))
}

// decodeCursor returns the id inside a cursor made by encodeCursor, or a
// 400 invalid_request *Problem naming the field "cursor" for anything else.
// The id must be printable ASCII without spaces, as every position a list
// hands out is (tenantkit's ids, a provider's event ids); it reaches the
// query as a bound parameter.
func decodeCursor(s string) (string, error) {
	if len(s) == 0 || len(s) > maxCursorLen {
		return "", badCursor()
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return "", badCursor()
	}
	id, ok := strings.CutPrefix(string(raw), cursorVersion)
	if !ok || len(id) == 0 || len(id) > maxCursorIDLen {
		return "", badCursor()
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return "", badCursor()
		}
	}
	// The decoder tolerates line breaks and stray trailing bits; accepting
	// only the canonical spelling keeps one cursor per position.
	if encodeCursor(id) != s {
		return "", badCursor()
	}
	return id, nil
}

// badCursor is the one answer to every malformed cursor: clients cannot fix
// a cursor, only drop it, so the reason does not matter to them.
func badCursor() *Problem {
	return InvalidRequest("invalid cursor",
		FieldError{Field: "cursor", Code: "invalid", Message: "is not a cursor returned by this API"})
}

// ParseListParams reads the pagination query parameters every list
// endpoint shares (ListQuery): limit (default 20, 1..100) and cursor, returned decoded
// as before, the id that the page must start after ("" for the first
// page). Bad values are a 400 invalid_request *Problem naming the parameter.
func ParseListParams(r *http.Request) (limit int, before string, err error) {
	q := r.URL.Query()
	limit = defaultListLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxListLimit {
			return 0, "", InvalidRequest("invalid limit", FieldError{
				Field:   "limit",
				Code:    "invalid",
				Message: "must be an integer between 1 and " + strconv.Itoa(maxListLimit),
			})
		}
		limit = n
	}
	if s := q.Get("cursor"); s != "" {
		before, err = decodeCursor(s)
		if err != nil {
			return 0, "", err
		}
	}
	return limit, before, nil
}

// ListResponse is the envelope of every list: {"data":[…],"has_more":bool,
// "next_cursor":"…"|null}.
type ListResponse[T any] struct {
	Data       []T     `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

// NewListResponse wraps one page of items. hasMore says whether items
// continue past this page (stores typically fetch limit+1 rows to know);
// lastID gives an item's id, from which the next cursor is made. Data is
// never null, so clients can iterate without a nil check.
func NewListResponse[T any](items []T, hasMore bool, lastID func(T) string) ListResponse[T] {
	if items == nil {
		items = []T{}
	}
	resp := ListResponse[T]{Data: items, HasMore: hasMore}
	if hasMore && len(items) > 0 {
		next := encodeCursor(lastID(items[len(items)-1]))
		resp.NextCursor = &next
	}
	return resp
}
