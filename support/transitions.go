package support

import "slices"

// transitions is the status machine of a ticket: from → the statuses it may
// move to. It is data, not code, so that it reads as the rule it is and the
// tests can walk every pair. Never modified.
//
// Staying in the same status is not listed: Service.Transition treats it as
// a successful no-op (see there), which is why closed, whose list is empty,
// is final.
var transitions = map[Status][]Status{
	StatusOpen:    {StatusPending, StatusOnHold, StatusSolved, StatusClosed},
	StatusPending: {StatusOpen, StatusOnHold, StatusSolved, StatusClosed},
	StatusOnHold:  {StatusOpen, StatusPending, StatusSolved, StatusClosed},
	StatusSolved:  {StatusOpen, StatusClosed}, // open = reopen
	StatusClosed:  {},
}

// CanTransition reports whether a ticket in status from may move to to.
// A move to the same status is not a transition and reports false; agent
// UIs use Transitions to offer only the moves that exist.
func CanTransition(from, to Status) bool {
	return slices.Contains(transitions[from], to)
}

// Transitions lists the statuses a ticket in status from may move to, in
// lifecycle order; none for closed or an unknown status. The caller owns
// the slice.
func Transitions(from Status) []Status {
	return slices.Clone(transitions[from])
}

// transitionConflict is the refusal of a move from from that the table
// does not list, naming the moves that exist; the ticket's status travels
// with it (conflictError.CurrentStatus).
func transitionConflict(from Status) error {
	if from == StatusClosed {
		return closedConflict()
	}
	return statusConflict(from, "a %s ticket can only move to %s", from, join(Transitions(from)))
}
