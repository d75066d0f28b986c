package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// The event log's insert (tenancy/event/bunstore): every mutation writes
// one in its transaction, learning in the same statement whether the
// tenant has an enabled webhook endpoint (outbound/bunstore.EndpointsExist).
const (
	sqlEventInsert = `INSERT INTO events (id, tenant_id, type, actor_type, actor_id, credential_id, auth_method, client_ip, request_id, resource_type, resource_id, data, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING EXISTS (SELECT 1 FROM webhook_endpoints WHERE tenant_id = $14 AND enabled)`
)

// actor is who an event says made the change: a caller's key, or the
// system (the payment provider's webhook) when c is nil.
type actor struct {
	c         *caller
	clientIP  string
	requestID string
}

func actorOf(r *http.Request, c *caller) actor {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	return actor{c: c, clientIP: host, requestID: newRequestID()}
}

// newRequestID makes a request id, as tenantkit's access log does.
func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// recordEvent writes one event of the change in tx, with data the resource
// after the change, as tenancy/event's Recorder does. With s.noEvents it
// does nothing: neither the event's insert nor any dispatch (the bench's
// event log cost measurement, eventcost.go in bench).
func (s *server) recordEvent(ctx context.Context, tx pgx.Tx, a actor, tenantID, typ, resourceType, resourceID string, data any) error {
	return s.recordEventAfter(ctx, tx, nil, a, tenantID, typ, resourceType, resourceID, data)
}

// queued is a statement of the change that goes before its event's.
type queued struct {
	sql  string
	args []any
}

// recordEventAfter is recordEvent with the change's own statements run
// first, each in a round trip of its own, as tenantkit runs them.
func (s *server) recordEventAfter(ctx context.Context, tx pgx.Tx, kept []queued, a actor, tenantID, typ, resourceType, resourceID string, data any) error {
	for _, k := range kept {
		if _, err := tx.Exec(ctx, k.sql, k.args...); err != nil {
			return err
		}
	}
	if s.noEvents {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	actorType, actorID, credentialID, method := "system", "", "", ""
	if a.c != nil {
		actorType, actorID, credentialID, method = "user", a.c.userID, a.c.keyID, "api_key"
	} else {
		a.clientIP = ""
	}
	var tenant *string
	if tenantID != "" {
		tenant = &tenantID
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	id := newID("evt")
	var subscribed bool
	if err := tx.QueryRow(ctx, sqlEventInsert, id, tenant, typ, actorType, actorID, credentialID, method,
		a.clientIP, a.requestID, resourceType, resourceID, string(raw), now, tenant).Scan(&subscribed); err != nil {
		return err
	}
	if !subscribed {
		return nil // no endpoint to deliver to (and none for the platform's own events)
	}
	ev := storedEvent{ID: id, TenantID: tenantID, Type: typ, RequestID: a.requestID, Data: raw, CreatedAt: now}
	ev.Actor.Type, ev.Actor.ID, ev.Actor.CredentialID, ev.Actor.AuthMethod, ev.Actor.ClientIP = actorType, actorID, credentialID, method, a.clientIP
	ev.Resource.Type, ev.Resource.ID = resourceType, resourceID
	return dispatchEvent(ctx, tx, ev)
}

// The outbound webhooks' statements on the path of every tenant event
// (outbound.Service.Dispatch on outbound/bunstore, and River's insert).
const (
	sqlEnabledEndpoints = `SELECT "endpoint_row"."id", "endpoint_row"."tenant_id", "endpoint_row"."event_types", "endpoint_row"."enabled" FROM "webhook_endpoints" AS "endpoint_row" WHERE (tenant_id = $1) AND (enabled)`
	sqlDeliveryInsert   = `INSERT INTO "webhook_deliveries" ("id", "tenant_id", "endpoint_id", "event_id", "event_type", "status", "payload", "attempt_count", "round_start", "next_attempt_at", "created_at", "updated_at") VALUES ($1, $2, $3, $4, $5, 'pending', $6, 0, 0, $7, $7, $7)`
	// sqlRiverJobInsert is River's JobInsertFastMany (riverdatabasesql),
	// one job per delivery in the queue "outbound".
	sqlRiverJobInsert = `WITH raw_job_data AS (SELECT unnest($1::bigint[]) AS id, unnest($2::jsonb[]) AS args, unnest($3::timestamptz[]) AS created_at, unnest($4::text[]) AS kind, unnest($5::smallint[]) AS max_attempts, unnest($6::jsonb[]) AS metadata, unnest($7::smallint[]) AS priority, unnest($8::text[]) AS queue, unnest($9::timestamptz[]) AS scheduled_at, unnest($10::text[]) AS state, unnest($11::text[]) AS tags, unnest($12::bytea[]) AS unique_key, unnest($13::integer[]) AS unique_states) ` +
		`INSERT INTO river_job(id, args, created_at, kind, max_attempts, metadata, priority, queue, scheduled_at, state, tags, unique_key, unique_states) SELECT coalesce(nullif(id, 0), nextval('river_job_id_seq'::regclass)), args, coalesce(nullif(created_at, '0001-01-01 00:00:00 +0000'), now()) AS created_at, kind, max_attempts, coalesce(metadata, '{}'::jsonb) AS metadata, priority, queue, coalesce(nullif(scheduled_at, '0001-01-01 00:00:00 +0000'), now()) AS scheduled_at, state::river_job_state, string_to_array(tags, ',')::varchar(255)[], nullif(unique_key, '')::bytea, nullif(unique_states::integer, 0)::bit(8) FROM raw_job_data ` +
		`ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND unique_states IS NOT NULL AND river_job_state_in_bitmask(unique_states, state) DO UPDATE SET kind = river_job.kind ` +
		`RETURNING river_job.id, river_job.args, river_job.attempt, river_job.attempted_at, river_job.attempted_by, river_job.created_at, river_job.errors, river_job.finalized_at, river_job.kind, river_job.max_attempts, river_job.metadata, river_job.priority, river_job.queue, river_job.state, river_job.scheduled_at, river_job.tags, river_job.unique_key, river_job.unique_states, (xmax != 0) AS unique_skipped_as_duplicate`
)

// dispatchEvent does tenantkit's outbound work for one event of a tenant
// with an enabled endpoint, in its transaction: one SELECT of the tenant's
// enabled endpoints and, when some take the event's type, one delivery
// each and their River jobs. The bench's ratio runs register no endpoint,
// so their requests never get here.
func dispatchEvent(ctx context.Context, tx pgx.Tx, ev storedEvent) error {
	type endpoint struct{ id, types string }
	var eps []endpoint
	rows, err := tx.Query(ctx, sqlEnabledEndpoints, ev.TenantID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var (
			e       endpoint
			tenant  string
			enabled bool
		)
		if err := rows.Scan(&e.id, &tenant, &e.types, &enabled); err != nil {
			rows.Close()
			return err
		}
		eps = append(eps, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var deliveries []string
	var body []byte
	for _, e := range eps {
		var types []string
		_ = json.Unmarshal([]byte(e.types), &types)
		if len(types) > 0 && !slices.Contains(types, ev.Type) {
			continue
		}
		if body == nil {
			if body, err = json.Marshal(map[string]any{"type": ev.Type, "timestamp": ev.CreatedAt, "data": ev}); err != nil {
				return err
			}
		}
		id := newID("whd")
		if _, err := tx.Exec(ctx, sqlDeliveryInsert, id, ev.TenantID, e.id, ev.ID, ev.Type, string(body), ev.CreatedAt); err != nil {
			return err
		}
		deliveries = append(deliveries, id)
	}
	if len(deliveries) == 0 {
		return nil
	}
	n := len(deliveries)
	ids, args, at, kinds := make([]int64, n), make([]string, n), make([]time.Time, n), make([]string, n)
	maxAttempts, metadata, priority, queues := make([]int16, n), make([]string, n), make([]int16, n), make([]string, n)
	states, tags, keys, uniq := make([]string, n), make([]string, n), make([][]byte, n), make([]int32, n)
	now := time.Now().UTC()
	for i, d := range deliveries {
		args[i], at[i], kinds[i] = `{"delivery_id":"`+d+`"}`, now, "outbound_delivery"
		maxAttempts[i], metadata[i], priority[i], queues[i], states[i] = 25, "{}", 1, "outbound", "available"
	}
	_, err = tx.Exec(ctx, sqlRiverJobInsert, ids, args, at, kinds, maxAttempts, metadata, priority, queues, at, states, tags, keys, uniq)
	return err
}

// storedEvent has the JSON shape of event.Event.
type storedEvent struct {
	ID       string `json:"id"`
	TenantID string `json:"tenant_id,omitempty"`
	Type     string `json:"type"`
	Actor    struct {
		Type         string `json:"type"`
		ID           string `json:"id,omitempty"`
		CredentialID string `json:"credential_id,omitempty"`
		AuthMethod   string `json:"auth_method,omitempty"`
		ClientIP     string `json:"client_ip,omitempty"`
	} `json:"actor"`
	RequestID string `json:"request_id,omitempty"`
	Resource  struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"resource"`
	Data      json.RawMessage `json:"data"`
	CreatedAt time.Time       `json:"created_at"`
}

const eventColumns = `"row"."id", "row"."tenant_id", "row"."type", "row"."actor_type", "row"."actor_id", "row"."credential_id", "row"."auth_method", "row"."client_ip", "row"."request_id", "row"."resource_type", "row"."resource_id", "row"."data", "row"."created_at"`

// listEvents answers GET /api/events: the tenant's events, newest first,
// by the event store's keyset query (its LIMIT written in, as Bun does).
func (s *server) listEvents(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "", "events:read", readsMembership)
	if err != nil {
		respondError(w, err)
		return
	}
	limit, before, err := listParams(r)
	if err != nil {
		respondError(w, err)
		return
	}
	sql, args := keysetPage(`SELECT `+eventColumns+` FROM "events" AS "row"`, c.tenantID, before, limit)
	page := make([]storedEvent, 0, limit+1)
	err = collect(r.Context(), s.db, sql, args, func(rows pgx.Rows) error {
		var (
			e      storedEvent
			tenant *string
			data   string
		)
		if err := rows.Scan(&e.ID, &tenant, &e.Type, &e.Actor.Type, &e.Actor.ID, &e.Actor.CredentialID, &e.Actor.AuthMethod,
			&e.Actor.ClientIP, &e.RequestID, &e.Resource.Type, &e.Resource.ID, &data, &e.CreatedAt); err != nil {
			return err
		}
		if tenant != nil {
			e.TenantID = *tenant
		}
		e.Data, e.CreatedAt = json.RawMessage(data), e.CreatedAt.UTC()
		page = append(page, e)
		return nil
	})
	if err != nil {
		respondError(w, err)
		return
	}
	writePage(w, page, limit, func(e storedEvent) string { return e.ID })
}
