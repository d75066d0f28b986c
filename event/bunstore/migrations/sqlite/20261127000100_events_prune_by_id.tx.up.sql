-- Events are pruned by id, which carries their creation time (id.Floor):
-- no index of created_at to keep up on every insert.
DROP INDEX IF EXISTS events_created_idx;
