-- invoices_id_idx serves one lookup, an invoice by its id alone (a payment
-- provider's webhook). A hash index serves it as well and, unlike a btree,
-- offers no order by id: with the btree the planner listed a big tenant's
-- newest page by walking every tenant's invoices newest first and
-- filtering out the others' (56,000 rows, 237 ms on the bench's data set,
-- where other tenants hold the newest invoices) instead of reading the
-- tenant's own (tenant_id, id) key (0.06 ms).
DROP INDEX invoices_id_idx;

--bun:split

CREATE INDEX invoices_id_idx ON invoices USING hash (id);
