-- tls: --tls auto's ACME account per directory, its certificates per name (chain, key
-- and the directory they came from), the HTTP-01 challenges under way (so any instance
-- on the database can answer them) and the lease that lets one instance order at a time.
CREATE TABLE `acme_accounts` (
	`directory` text PRIMARY KEY NOT NULL,
	`key_pem` text NOT NULL,
	`url` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `acme_challenges` (
	`token` text PRIMARY KEY NOT NULL,
	`key_authorization` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `acme_lease` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tls_certificates` (
	`name` text PRIMARY KEY NOT NULL,
	`directory` text NOT NULL,
	`cert_pem` text NOT NULL,
	`key_pem` text NOT NULL,
	`not_before` integer NOT NULL,
	`not_after` integer NOT NULL,
	`updated_at` integer NOT NULL
);
