-- retries counts a delivery's retries, so that an attempt that was running
-- when the delivery was retried knows, as it records, that the retry asked
-- for another attempt at once.
ALTER TABLE webhook_deliveries ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
