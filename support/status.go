package support

import "slices"

// Status is where a ticket stands in its life. Which status may follow which
// is decided by the transition table (see CanTransition).
type Status string

// The statuses of a ticket.
const (
	// StatusOpen: waiting for the platform team. Every ticket starts here.
	StatusOpen Status = "open"
	// StatusPending: the team asked the requester something and waits.
	StatusPending Status = "pending"
	// StatusOnHold: waiting on a third party (or the team's own backlog).
	StatusOnHold Status = "on_hold"
	// StatusSolved: the team considers the request answered; it can still
	// be reopened (back to open) until it is closed.
	StatusSolved Status = "solved"
	// StatusClosed: final. A closed ticket can no longer change.
	StatusClosed Status = "closed"
)

// Statuses lists every status in lifecycle order. The caller owns the slice.
func Statuses() []Status {
	return []Status{StatusOpen, StatusPending, StatusOnHold, StatusSolved, StatusClosed}
}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool { return slices.Contains(Statuses(), s) }

// Priority is how urgent a ticket is.
type Priority string

// The priorities of a ticket, from least to most urgent.
const (
	PriorityLow    Priority = "low"
	PriorityNormal Priority = "normal"
	PriorityHigh   Priority = "high"
	PriorityUrgent Priority = "urgent"
)

// DefaultPriority is what a ticket gets when its creator names none.
const DefaultPriority = PriorityNormal

// Priorities lists every priority from least to most urgent. The caller
// owns the slice.
func Priorities() []Priority {
	return []Priority{PriorityLow, PriorityNormal, PriorityHigh, PriorityUrgent}
}

// Valid reports whether p is one of Priorities.
func (p Priority) Valid() bool { return slices.Contains(Priorities(), p) }
