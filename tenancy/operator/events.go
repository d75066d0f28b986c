package operator

import (
	"context"

	"github.com/tenantkit/tenantkit/event"
)

// Events records the audit trail's events: Record writes one event of type
// typ about a resource of tenantID ("" for the platform's own, as operator
// keys are), with data (the resource after the change, never a secret), on
// the transaction ctx carries. *event.Recorder implements it.
type Events interface {
	Record(ctx context.Context, tenantID, typ, resourceType, resourceID string, data any) error
}

// Transactor runs fn in one transaction carried by the context fn
// receives, committing only when fn returns nil. tenantkit.Transactor
// implements it.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// WithEvents makes Keys record operator_key.created (the key without its
// secret) and operator_key.revoked, platform events, each in the
// transaction of its change, which tx runs. tenantkit.New always passes
// them; Keys without them record nothing.
func WithEvents(e Events, tx Transactor) Option {
	return func(k *Keys) { k.events, k.tx = e, tx }
}

// change runs fn, and then records the event typ about the key fn returns
// when fn changed it, in one transaction.
func (s *Keys) change(ctx context.Context, typ string, fn func(ctx context.Context) (k Key, changed bool, err error)) (Key, error) {
	if s.tx == nil || s.events == nil {
		k, _, err := fn(ctx)
		return k, err
	}
	var k Key
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var (
			changed bool
			err     error
		)
		if k, changed, err = fn(ctx); err != nil || !changed {
			return err
		}
		return s.events.Record(ctx, "", typ, "operator_key", k.ID, k)
	})
	return k, err
}

// The events Keys records.
const (
	eventCreated = event.OperatorKeyCreated
	eventRevoked = event.OperatorKeyRevoked
)
