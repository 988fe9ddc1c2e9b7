-- 0008_link_list_indexes: what GET /api/links's filters and orders need on a million
-- links. Sorted by code, the list walks links_code (the code's bytes, collation C, as
-- SQLite compares them; then id). Sorted by clicks, it walks link_click_order: a link's
-- count is a sum of sharded rows (link_clicks), which no index can order, so each link
-- has one row here, added with the link by the trigger below and set to the link's
-- count by the analytics rollup whenever it moves the link's clicks
-- (store/postgres/analytics.ts). Filled here with every link's count so far.
-- domain_totals and tag_totals count the links of each domain and each tag, kept by
-- triggers as link_totals is for owners, so the total of a list of one domain or one
-- tag is read rather than counted (an index-only count of a quarter of a million links
-- took 140 ms).
CREATE TABLE "domain_totals" (
	"domain_id" integer PRIMARY KEY NOT NULL,
	"links" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "link_click_order" (
	"link_id" integer PRIMARY KEY NOT NULL,
	"clicks" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tag_totals" (
	"tag" varchar(32) PRIMARY KEY NOT NULL,
	"links" bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO domain_totals (domain_id, links) SELECT domain_id, count(*) FROM links GROUP BY 1;
--> statement-breakpoint
INSERT INTO tag_totals (tag, links) SELECT tag, count(*) FROM link_tags GROUP BY 1;
--> statement-breakpoint
INSERT INTO link_click_order (link_id, clicks)
SELECT l.id, coalesce(s.n, 0) FROM links l
LEFT JOIN (SELECT link_id, sum(clicks) AS n FROM link_clicks GROUP BY link_id) s ON s.link_id = l.id;
--> statement-breakpoint
CREATE INDEX "link_click_order_clicks" ON "link_click_order" USING btree ("clicks","link_id");--> statement-breakpoint
CREATE INDEX "links_code" ON "links" USING btree ("short_code" collate "C","id");--> statement-breakpoint
-- Every link inserted, by any statement (kurz copy's included), gets its row at 0 clicks;
-- rows go with their link (LINK_CLICK_TABLES).
CREATE FUNCTION kurz_link_click_order_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO link_click_order (link_id) SELECT id FROM added ORDER BY id ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER links_click_order_insert AFTER INSERT ON links
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION kurz_link_click_order_added();
--> statement-breakpoint
-- The totals of domains and tags follow every statement that adds or removes links or
-- tags: each key's row once per statement, in key order (so two statements cannot
-- deadlock on them), as an upsert of the difference. A link moved to another domain is
-- moved by a row trigger, which fires only then.
CREATE FUNCTION kurz_domain_totals_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO domain_totals (domain_id, links)
  SELECT domain_id, count(*) FROM added GROUP BY 1 ORDER BY 1
  ON CONFLICT (domain_id) DO UPDATE SET links = domain_totals.links + excluded.links;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION kurz_domain_totals_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO domain_totals (domain_id, links)
  SELECT domain_id, -count(*) FROM removed GROUP BY 1 ORDER BY 1
  ON CONFLICT (domain_id) DO UPDATE SET links = domain_totals.links + excluded.links;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION kurz_domain_totals_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO domain_totals (domain_id, links)
  VALUES (least(old.domain_id, new.domain_id),
          CASE WHEN old.domain_id < new.domain_id THEN -1 ELSE 1 END),
         (greatest(old.domain_id, new.domain_id),
          CASE WHEN old.domain_id < new.domain_id THEN 1 ELSE -1 END)
  ON CONFLICT (domain_id) DO UPDATE SET links = domain_totals.links + excluded.links;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER links_domain_totals_insert AFTER INSERT ON links
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION kurz_domain_totals_added();
--> statement-breakpoint
CREATE TRIGGER links_domain_totals_delete AFTER DELETE ON links
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION kurz_domain_totals_removed();
--> statement-breakpoint
CREATE TRIGGER links_domain_totals_move AFTER UPDATE OF domain_id ON links
  FOR EACH ROW WHEN (old.domain_id <> new.domain_id) EXECUTE FUNCTION kurz_domain_totals_moved();
--> statement-breakpoint
CREATE FUNCTION kurz_tag_totals_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tag_totals (tag, links)
  SELECT tag, count(*) FROM added GROUP BY 1 ORDER BY 1
  ON CONFLICT (tag) DO UPDATE SET links = tag_totals.links + excluded.links;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION kurz_tag_totals_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tag_totals (tag, links)
  SELECT tag, -count(*) FROM removed GROUP BY 1 ORDER BY 1
  ON CONFLICT (tag) DO UPDATE SET links = tag_totals.links + excluded.links;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER link_tags_totals_insert AFTER INSERT ON link_tags
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION kurz_tag_totals_added();
--> statement-breakpoint
CREATE TRIGGER link_tags_totals_delete AFTER DELETE ON link_tags
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION kurz_tag_totals_removed();
--> statement-breakpoint
-- ?q= (text a code or target contains, in either case) is found through trigram indexes
-- of pg_trgm, a contrib extension that a database's owner may install: into public when
-- it can (a place every schema of the database sees, which outlives them), else into the
-- schema kurz uses. Where it cannot be installed, or is installed elsewhere already, the
-- indexes use it where it is, or are left out: searches then read every link.
DO $$
DECLARE
  trgm name;
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
  EXCEPTION WHEN OTHERS THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'kurz: pg_trgm cannot be installed (%): ?q= will read every link', SQLERRM;
    END;
  END;
  SELECT n.nspname INTO trgm FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
  WHERE e.extname = 'pg_trgm';
  IF trgm IS NOT NULL THEN
    EXECUTE format('CREATE INDEX links_code_trgm ON links USING gin (short_code %I.gin_trgm_ops)', trgm);
    EXECUTE format('CREATE INDEX links_url_trgm ON links USING gin (original_url %I.gin_trgm_ops)', trgm);
  END IF;
END $$;
