package bunstore

import (
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/webhook"
)

// eventRow is a row of the webhook_events table; toRow and record
// convert it from and to a webhook.Record.
type eventRow struct {
	bun.BaseModel `bun:"table:webhook_events"`
	ID            string     `bun:"id,pk"`
	Type          string     `bun:"type"`
	Payload       string     `bun:"payload"`
	Outcome       string     `bun:"outcome"`
	Reason        string     `bun:"reason"`
	TenantID      *string    `bun:"tenant_id"`
	InvoiceID     *string    `bun:"invoice_id"`
	ReceivedAt    time.Time  `bun:"received_at"`
	ProcessedAt   *time.Time `bun:"processed_at"`
}

func toRow(r webhook.Record) eventRow {
	return eventRow{
		ID: r.ID, Type: r.Type, Payload: string(r.Payload), Outcome: string(r.Outcome), Reason: r.Reason,
		TenantID: nullable(r.TenantID), InvoiceID: nullable(r.InvoiceID),
		ReceivedAt: r.ReceivedAt.UTC(), ProcessedAt: utc(r.ProcessedAt),
	}
}

func (row eventRow) record() webhook.Record {
	r := webhook.Record{
		ID: row.ID, Type: row.Type, Payload: []byte(row.Payload), Outcome: webhook.Outcome(row.Outcome), Reason: row.Reason,
		ReceivedAt: row.ReceivedAt.UTC(), ProcessedAt: utc(row.ProcessedAt),
	}
	if row.TenantID != nil {
		r.TenantID = *row.TenantID
	}
	if row.InvoiceID != nil {
		r.InvoiceID = *row.InvoiceID
	}
	return r
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
