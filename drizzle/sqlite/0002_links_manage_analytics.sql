-- 0002_links_manage_analytics: links may expire (at a time, or after max_clicks clicks)
-- and have a password; clicks carry a country; and the analytics tables: strings and
-- user agents stored once, compact click records, and daily rollups per dimension.
CREATE TABLE `click_agents` (
	`id` integer PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`browser` text NOT NULL,
	`os` text NOT NULL,
	`device` text NOT NULL,
	`bot` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `click_agents_value_unique` ON `click_agents` (`value`);--> statement-breakpoint
CREATE TABLE `click_days` (
	`link_id` integer NOT NULL,
	`day` integer NOT NULL,
	`dimension` integer NOT NULL,
	`value` integer NOT NULL,
	`clicks` integer NOT NULL,
	PRIMARY KEY(`link_id`, `day`, `dimension`, `value`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `click_records` (
	`id` integer PRIMARY KEY NOT NULL,
	`link_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`source` integer,
	`query_source` integer,
	`referrer` integer,
	`agent` integer,
	`country` text
);
--> statement-breakpoint
CREATE INDEX `click_records_link` ON `click_records` (`link_id`,`id`);--> statement-breakpoint
CREATE TABLE `click_rollup` (
	`id` integer PRIMARY KEY NOT NULL,
	`through` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `click_strings` (
	`id` integer PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `click_strings_value_unique` ON `click_strings` (`value`);--> statement-breakpoint
ALTER TABLE `clicks` ADD `country` text;--> statement-breakpoint
ALTER TABLE `links` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `links` ADD `max_clicks` integer;--> statement-breakpoint
ALTER TABLE `links` ADD `limited_clicks` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `links` ADD `password_hash` text;