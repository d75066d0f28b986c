-- Operators settle unmatched events by hand: applied to the invoice they
-- matched, or dismissed with a reason.
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_outcome_check;

--bun:split

ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_outcome_check
    CHECK (outcome IN ('pending', 'applied', 'ignored', 'unmatched', 'dismissed'));

--bun:split

-- The operators' list pages through one outcome by id.
CREATE INDEX webhook_events_outcome_id_idx ON webhook_events (outcome, id);
