-- 0001_link_totals_triggers: keep link_totals in step with links, in the same
-- transaction as every insert and delete (deletes include those cascaded from users).
-- Owner 0 stands for links of no one (made in open mode).
CREATE FUNCTION kurz_link_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO link_totals (owner, links) VALUES (coalesce(NEW.user_id, 0), 1)
    ON CONFLICT (owner) DO UPDATE SET links = link_totals.links + 1;
    RETURN NEW;
  END IF;
  UPDATE link_totals SET links = links - 1 WHERE owner = coalesce(OLD.user_id, 0);
  RETURN OLD;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER links_count_insert AFTER INSERT ON links
  FOR EACH ROW EXECUTE FUNCTION kurz_link_totals();
--> statement-breakpoint
CREATE TRIGGER links_count_delete AFTER DELETE ON links
  FOR EACH ROW EXECUTE FUNCTION kurz_link_totals();
