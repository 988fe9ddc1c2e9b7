-- 0001_link_totals_triggers: keep link_totals in step with links, in the same
-- transaction as every insert and delete (deletes include those cascaded from users).
-- Owner 0 stands for links of no one (made in open mode).
CREATE TRIGGER `links_count_insert` AFTER INSERT ON `links` BEGIN
  INSERT INTO `link_totals` (`owner`, `links`) VALUES (coalesce(NEW.`user_id`, 0), 1)
  ON CONFLICT (`owner`) DO UPDATE SET `links` = `links` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `links_count_delete` AFTER DELETE ON `links` BEGIN
  UPDATE `link_totals` SET `links` = `links` - 1 WHERE `owner` = coalesce(OLD.`user_id`, 0);
END;
