-- 0001_link_totals_triggers: keep link_totals in step with links, in the same
-- transaction as every insert and delete (deletes include those cascaded from users).
-- Owner 0 stands for links of no one (made in open mode). Statement-level triggers
-- over the rows a statement added or removed: a batch of links updates each owner's
-- row once, not once per link (row by row, a long batch of one owner slowed down with
-- every update of the same row, and held that row for longer).
CREATE FUNCTION kurz_links_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO link_totals (owner, links)
  SELECT coalesce(user_id, 0), count(*) FROM added GROUP BY 1 ORDER BY 1
  ON CONFLICT (owner) DO UPDATE SET links = link_totals.links + excluded.links;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION kurz_links_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE link_totals SET links = link_totals.links - gone.n
  FROM (SELECT coalesce(user_id, 0) AS owner, count(*) AS n FROM removed GROUP BY 1) AS gone
  WHERE link_totals.owner = gone.owner;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER links_count_insert AFTER INSERT ON links
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION kurz_links_added();
--> statement-breakpoint
CREATE TRIGGER links_count_delete AFTER DELETE ON links
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION kurz_links_removed();
