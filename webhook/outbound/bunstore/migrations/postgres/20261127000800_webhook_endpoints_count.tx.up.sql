-- tenants.enabled_webhook_endpoints counts each tenant's enabled endpoints
-- (tenancy/bunstore's migration adds it). Triggers keep it, whatever
-- changes an endpoint: a relative update is right under concurrent
-- changes, where each waits for the tenant row and adds to what the
-- previous one committed.
CREATE FUNCTION count_webhook_endpoints() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.enabled THEN
        UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints - 1 WHERE id = OLD.tenant_id;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.enabled THEN
        UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints + 1 WHERE id = NEW.tenant_id;
    END IF;
    RETURN NULL;
END
$$;

--bun:split

CREATE TRIGGER webhook_endpoints_counted_insert AFTER INSERT ON webhook_endpoints
    FOR EACH ROW WHEN (NEW.enabled) EXECUTE FUNCTION count_webhook_endpoints();

--bun:split

CREATE TRIGGER webhook_endpoints_counted_update AFTER UPDATE OF enabled, tenant_id ON webhook_endpoints
    FOR EACH ROW WHEN (OLD.enabled IS DISTINCT FROM NEW.enabled OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
    EXECUTE FUNCTION count_webhook_endpoints();

--bun:split

CREATE TRIGGER webhook_endpoints_counted_delete AFTER DELETE ON webhook_endpoints
    FOR EACH ROW WHEN (OLD.enabled) EXECUTE FUNCTION count_webhook_endpoints();

--bun:split

UPDATE tenants SET enabled_webhook_endpoints =
    (SELECT count(*) FROM webhook_endpoints e WHERE e.tenant_id = tenants.id AND e.enabled);
