-- 0007_tag_days: click_days summed per owner and tag (owner: the links' user_id, 0 for
-- links of no one), so that a tag's stats read the tag's days and values rather than
-- the day counts of each of its links (two million rows for 1,000 links over 90 days).
-- The rollup, a change of a link's tags and the removal of a link or a user keep it
-- exact from now on; the sums of the day counts as they stand are filled in here.
CREATE TABLE `tag_days` (
	`owner` integer NOT NULL,
	`tag` text(32) NOT NULL,
	`day` integer NOT NULL,
	`dimension` integer NOT NULL,
	`value` integer NOT NULL,
	`clicks` integer NOT NULL,
	PRIMARY KEY(`owner`, `tag`, `day`, `dimension`, `value`)
);
--> statement-breakpoint
INSERT INTO `tag_days` (`owner`, `tag`, `day`, `dimension`, `value`, `clicks`)
SELECT coalesce(l.user_id, 0), t.tag, d.day, d.dimension, d.value, sum(d.clicks)
FROM link_tags t JOIN links l ON l.id = t.link_id JOIN click_days d ON d.link_id = t.link_id
GROUP BY 1, 2, 3, 4, 5;
