-- 0007_link_list_indexes: GET /api/links sorted by code walks links_code (the code's
-- bytes, then the rowid every index ends with). Sorted by clicks, the list walks an
-- index of the counts file, which is not migrated: attachCounts (click-counts.ts)
-- makes it.
CREATE INDEX `links_code` ON `links` (`short_code`);
