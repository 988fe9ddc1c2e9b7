-- 0006_domains_tags: several short domains and tags. A link belongs to one domain (0,
-- the default one, --base-url's, which has no row; every link before this belongs to
-- it), and its code is unique per domain, no longer across all links. link_tags holds
-- each link's tags, lower-cased.
CREATE TABLE `domains` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`base_url` text NOT NULL,
	`host` text NOT NULL,
	`root_redirect` text,
	`not_found_redirect` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domains_host_unique` ON `domains` (`host`);--> statement-breakpoint
CREATE TABLE `link_tags` (
	`link_id` integer NOT NULL,
	`tag` text(32) NOT NULL,
	PRIMARY KEY(`link_id`, `tag`)
);
--> statement-breakpoint
CREATE INDEX `link_tags_tag` ON `link_tags` (`tag`,`link_id`);--> statement-breakpoint
DROP INDEX `links_short_code_unique`;--> statement-breakpoint
ALTER TABLE `links` ADD `domain_id` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `links_domain_code` ON `links` (`domain_id`,`short_code`);--> statement-breakpoint
CREATE INDEX `links_domain_newest` ON `links` (`domain_id`,"created_at" desc,"id" desc);