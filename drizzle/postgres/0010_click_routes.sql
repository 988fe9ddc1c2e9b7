-- click_routes: what served each click (rule:N, variant:N; null: the link's own target), in
-- the log and the records, for a link's stats and CSV. Clicks before it read as `default`.
ALTER TABLE "click_records" ADD COLUMN "route" text;--> statement-breakpoint
ALTER TABLE "clicks" ADD COLUMN "route" text;--> statement-breakpoint
-- The clicks already in the log have no route: counted as such (log column 5, no value)
-- in pending_values, in the shard each click's batch counted it in, as the batches count
-- theirs, so stats agree before and after the rollup moves them.
INSERT INTO "pending_values" ("link_id", "day", "log_column", "has_value", "value", "shard", "clicks")
SELECT link_id, (created_at / 86400000)::int, 5, false, '', shard, count(*)
FROM clicks GROUP BY 1, 2, 6;
