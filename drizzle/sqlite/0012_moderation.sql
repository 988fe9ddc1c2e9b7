-- moderation: the admin role, disabled accounts and links, OIDC sign-in's issuer and
-- subject per account, reports of abusive links, and the blocklist's database entries.
CREATE TABLE `blocked_hosts` (
	`host` text PRIMARY KEY NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL,
	`added_by` integer
);
--> statement-breakpoint
CREATE TABLE `reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`link_id` integer,
	`domain_id` integer DEFAULT 0 NOT NULL,
	`short_code` text(32) NOT NULL,
	`reason` text NOT NULL,
	`details` text,
	`created_at` integer NOT NULL,
	`resolved_at` integer,
	`resolution` text,
	`resolved_by` integer
);
--> statement-breakpoint
CREATE INDEX `reports_waiting` ON `reports` (`id`) WHERE "reports"."resolved_at" IS NULL;--> statement-breakpoint
CREATE INDEX `reports_link` ON `reports` (`link_id`);--> statement-breakpoint
ALTER TABLE `links` ADD `disabled_at` integer;--> statement-breakpoint
ALTER TABLE `links` ADD `disabled_reason` text;--> statement-breakpoint
ALTER TABLE `users` ADD `admin` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `disabled_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `oidc_issuer` text;--> statement-breakpoint
ALTER TABLE `users` ADD `oidc_subject` text;--> statement-breakpoint
CREATE UNIQUE INDEX `users_oidc` ON `users` (`oidc_issuer`,`oidc_subject`);