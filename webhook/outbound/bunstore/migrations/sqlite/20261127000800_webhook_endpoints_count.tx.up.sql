-- tenants.enabled_webhook_endpoints counts each tenant's enabled endpoints
-- (tenancy/bunstore's migration adds it). Triggers keep it, whatever
-- changes an endpoint.
CREATE TRIGGER webhook_endpoints_counted_insert AFTER INSERT ON webhook_endpoints
    FOR EACH ROW WHEN NEW.enabled
BEGIN
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints + 1 WHERE id = NEW.tenant_id;
END;

--bun:split

CREATE TRIGGER webhook_endpoints_counted_update AFTER UPDATE OF enabled, tenant_id ON webhook_endpoints
    FOR EACH ROW WHEN OLD.enabled IS NOT NEW.enabled OR OLD.tenant_id IS NOT NEW.tenant_id
BEGIN
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints - 1 WHERE id = OLD.tenant_id AND OLD.enabled;
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints + 1 WHERE id = NEW.tenant_id AND NEW.enabled;
END;

--bun:split

CREATE TRIGGER webhook_endpoints_counted_delete AFTER DELETE ON webhook_endpoints
    FOR EACH ROW WHEN OLD.enabled
BEGIN
    UPDATE tenants SET enabled_webhook_endpoints = enabled_webhook_endpoints - 1 WHERE id = OLD.tenant_id;
END;

--bun:split

UPDATE tenants SET enabled_webhook_endpoints =
    (SELECT count(*) FROM webhook_endpoints e WHERE e.tenant_id = tenants.id AND e.enabled);
