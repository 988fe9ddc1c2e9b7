-- 0009_search_and_code_indexes: a new link costs less to insert. Codes are random, so each
-- index led by the code takes a new link at a random page; links_code (for the list sorted
-- by code) and links_domain_code (unique per domain) were two such. One unique index,
-- code first, serves both: the redirect's lookup (both columns equal) and the list sorted
-- by code (code bytes, then domain, then id).
DROP INDEX `links_domain_code`;--> statement-breakpoint
DROP INDEX `links_code`;--> statement-breakpoint
CREATE UNIQUE INDEX `links_code_domain` ON `links` (`short_code`,`domain_id`);--> statement-breakpoint
-- New links enter link_search once per insert batch, from the store (links.ts), instead of
-- from a trigger per row: FTS5 run from a row trigger costs several times what one
-- INSERT … SELECT of the batch's rows costs. Removals and changes keep their triggers.
DROP TRIGGER links_search_added;
