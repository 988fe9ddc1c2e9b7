-- 0005_pending_values: the clicks still in the log, counted per link, UTC day, log column
-- and raw value, so that stats of a link with a large backlog read its distinct values
-- rather than scanning its clicks. The click batches and the rollup keep the table exact
-- from now on; the counts of the log as it stands are filled in here. No row for a click
-- without a source or query source (stats count nothing for those columns).
-- Clicks already in the log get shard 0, as their counts do.
CREATE TABLE "pending_values" (
	"link_id" integer NOT NULL,
	"day" integer NOT NULL,
	"log_column" smallint NOT NULL,
	"has_value" boolean NOT NULL,
	"value" text NOT NULL,
	"shard" smallint NOT NULL,
	"clicks" bigint NOT NULL,
	CONSTRAINT "pending_values_link_id_day_log_column_has_value_value_shard_pk" PRIMARY KEY("link_id","day","log_column","has_value","value","shard")
);
--> statement-breakpoint
ALTER TABLE "clicks" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;
--> statement-breakpoint
INSERT INTO "pending_values" ("link_id", "day", "log_column", "has_value", "value", "shard", "clicks")
SELECT link_id, (created_at / 86400000)::int, 0, source IS NOT NULL, coalesce(source, ''), 0, count(*)
FROM clicks WHERE source IS NOT NULL GROUP BY 1, 2, 5, 4
UNION ALL
SELECT link_id, (created_at / 86400000)::int, 1, query_source IS NOT NULL, coalesce(query_source, ''), 0, count(*)
FROM clicks WHERE query_source IS NOT NULL GROUP BY 1, 2, 5, 4
UNION ALL
SELECT link_id, (created_at / 86400000)::int, 2, referrer IS NOT NULL, coalesce(referrer, ''), 0, count(*)
FROM clicks GROUP BY 1, 2, 5, 4
UNION ALL
SELECT link_id, (created_at / 86400000)::int, 3, user_agent IS NOT NULL, coalesce(user_agent, ''), 0, count(*)
FROM clicks GROUP BY 1, 2, 5, 4
UNION ALL
SELECT link_id, (created_at / 86400000)::int, 4, country IS NOT NULL, coalesce(country, ''), 0, count(*)
FROM clicks GROUP BY 1, 2, 5, 4;