-- A tenant's settings (tenancy.TenantSettings, GET and PATCH
-- /api/tenant/settings): one row per tenant that saved any; NULL is unset.
CREATE TABLE tenant_settings (
    tenant_id                  TEXT PRIMARY KEY REFERENCES tenants (id),
    payment_link_template      TEXT,
    invoice_footer             TEXT,
    reply_to_email             TEXT,
    default_payment_terms_days INTEGER,
    updated_at                 TIMESTAMP NOT NULL
);
