// Package fault holds the one error that every layer shares: a storage
// failure that is not the caller's fault. Stores wrap driver errors in it
// (internal/database.Wrap) and the HTTP edge answers it with 503, without
// either importing the other.
package fault

import "errors"

// ErrUnavailable marks a database failure that is not the caller's fault
// (connection lost, server restarting, lock timeout). Callers may retry.
var ErrUnavailable = errors.New("database unavailable")
