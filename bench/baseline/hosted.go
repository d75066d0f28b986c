package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The hosted invoice pages' URLs, as billing.Hosted makes them: every
// finalized invoice in an answer carries hosted_url, {public URL}/pay/
// {token}, the token an HMAC of the invoice id and its version; the first
// time an invoice is shown its version 1 is recorded with the token's
// hash. The key is this process's own (tenantkit derives it from its
// secret key): the same work, other tokens.

// hostedKey is the tokens' key: HMAC-SHA256 of a purpose string under a
// random 32-byte secret, as billing.NewHosted derives it.
var hostedKey = func() []byte {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("tenantkit hosted invoice tokens v1"))
	return m.Sum(nil)
}()

// hostedToken is the invoice's token of version v.
func hostedToken(invoiceID string, v int) string {
	m := hmac.New(sha256.New, hostedKey)
	m.Write([]byte(invoiceID + "\x00" + strconv.Itoa(v)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// withHostedURLs sets the hosted_url of each finalized invoice of invs,
// the tenant's: one read of their versions, one insert of those that have
// none yet (nothing at all when none is finalized).
func (s *server) withHostedURLs(ctx context.Context, tenantID string, invs []*invoice) error {
	var ids []string
	for _, inv := range invs {
		if inv.Status != "draft" {
			ids = append(ids, inv.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	args := []any{tenantID}
	marks := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		marks[i] = "$" + strconv.Itoa(i+2)
	}
	versions := make(map[string]int, len(ids))
	sql := fmt.Sprintf(`SELECT "hosted_row"."tenant_id", "hosted_row"."invoice_id", "hosted_row"."version", "hosted_row"."token_hash" FROM "invoice_hosted_tokens" AS "hosted_row" WHERE (tenant_id = $1) AND (invoice_id IN (%s))`, strings.Join(marks, ", "))
	if err := collect(ctx, s.db, sql, args, func(rows pgx.Rows) error {
		var tid, id, hash string
		var v int
		err := rows.Scan(&tid, &id, &v, &hash)
		versions[id] = v
		return err
	}); err != nil {
		return err
	}
	var values []string
	insert := []any{}
	for _, id := range ids {
		if _, ok := versions[id]; ok {
			continue
		}
		versions[id] = 1
		sum := sha256.Sum256([]byte(hostedToken(id, 1)))
		n := len(insert)
		values = append(values, fmt.Sprintf("($%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4))
		insert = append(insert, tenantID, id, 1, hex.EncodeToString(sum[:]))
	}
	if len(values) > 0 {
		if _, err := s.db.Exec(ctx, `INSERT INTO "invoice_hosted_tokens" AS "hosted_row" ("tenant_id", "invoice_id", "version", "token_hash") VALUES `+
			strings.Join(values, ", ")+` ON CONFLICT (tenant_id, invoice_id) DO NOTHING`, insert...); err != nil {
			return err
		}
	}
	for _, inv := range invs {
		if v, ok := versions[inv.ID]; ok {
			inv.HostedURL = s.publicURL + "/pay/" + hostedToken(inv.ID, v)
		}
	}
	return nil
}
