-- 0005_pending_values: the clicks still in the log, counted per link, UTC day, log column
-- and raw value, so that stats of a link with a large backlog read its distinct values
-- rather than scanning its clicks. The click batches and the rollup keep the table exact
-- from now on; the counts of the log as it stands are filled in here. No row for a click
-- without a source or query source (stats count nothing for those columns).
CREATE TABLE `pending_values` (
	`link_id` integer NOT NULL,
	`day` integer NOT NULL,
	`log_column` integer NOT NULL,
	`has_value` integer NOT NULL,
	`value` text NOT NULL,
	`clicks` integer NOT NULL,
	PRIMARY KEY(`link_id`, `day`, `log_column`, `has_value`, `value`)
);
--> statement-breakpoint
INSERT INTO `pending_values` (`link_id`, `day`, `log_column`, `has_value`, `value`, `clicks`)
SELECT link_id, CAST(created_at / 86400000 AS INTEGER), 0, source IS NOT NULL, coalesce(source, ''), count(*)
FROM clicks WHERE source IS NOT NULL GROUP BY 1, 2, 5, 4
UNION ALL
SELECT link_id, CAST(created_at / 86400000 AS INTEGER), 1, query_source IS NOT NULL, coalesce(query_source, ''), count(*)
FROM clicks WHERE query_source IS NOT NULL GROUP BY 1, 2, 5, 4
UNION ALL
SELECT link_id, CAST(created_at / 86400000 AS INTEGER), 2, referrer IS NOT NULL, coalesce(referrer, ''), count(*)
FROM clicks GROUP BY 1, 2, 5, 4
UNION ALL
SELECT link_id, CAST(created_at / 86400000 AS INTEGER), 3, user_agent IS NOT NULL, coalesce(user_agent, ''), count(*)
FROM clicks GROUP BY 1, 2, 5, 4
UNION ALL
SELECT link_id, CAST(created_at / 86400000 AS INTEGER), 4, country IS NOT NULL, coalesce(country, ''), count(*)
FROM clicks GROUP BY 1, 2, 5, 4;