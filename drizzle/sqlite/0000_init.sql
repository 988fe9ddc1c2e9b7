-- 0000_init: the first schema of kurz.
-- users: accounts (accounts mode); e-mails are stored trimmed and lower-cased.
-- links: short_code holds custom codes of up to 32 characters; user_id is null for
--   links made in open mode; `source` is the label given at creation, copied into
--   each click record. The two *_newest indexes serve the newest-first list. Click
--   counts are not kept here: a redirect must not rewrite a random page of this table.
-- clicks: the click log, one row per counted redirect; no IP address is kept. It has
--   no secondary index and no foreign key on purpose: every redirect appends to it,
--   so it stays one b-tree append. Counts per link are rolled up from it.
-- link_totals: links per owner (0 = no one), kept by the triggers of 0001.
-- settings: server-wide values, such as the generated JWT secret.
-- Never edit this file once released: add a new migration instead.
CREATE TABLE `clicks` (
	`id` integer PRIMARY KEY NOT NULL,
	`link_id` integer NOT NULL,
	`source` text,
	`query_source` text,
	`referrer` text,
	`user_agent` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `link_totals` (
	`owner` integer PRIMARY KEY NOT NULL,
	`links` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer,
	`original_url` text NOT NULL,
	`short_code` text(32) NOT NULL,
	`source` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `links_short_code_unique` ON `links` (`short_code`);--> statement-breakpoint
CREATE INDEX `links_user_newest` ON `links` (`user_id`,"created_at" desc,"id" desc);--> statement-breakpoint
CREATE INDEX `links_newest` ON `links` ("created_at" desc,"id" desc);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text(255) NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);