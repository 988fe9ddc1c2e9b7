-- 0008_link_list_indexes: what GET /api/links's filters and orders need on a million
-- links. Sorted by code, the list walks links_code (the code's bytes, then the rowid
-- every index ends with). Sorted by clicks, it walks an index of the counts file, which
-- is not migrated: attachCounts (click-counts.ts) makes it.
CREATE INDEX `links_code` ON `links` (`short_code`);--> statement-breakpoint
-- ?q= (text a code or target contains) is found through link_search: each link's code
-- and target cut into trigrams (FTS5's trigram tokenizer, case-folded), the index only
-- (detail none, no sizes: about 100 bytes a link); its text is the links table's, which
-- the triggers below follow. A search takes the links holding the text's trigrams and
-- checks each against the text itself (link-search.ts).
CREATE VIRTUAL TABLE link_search USING fts5(
  short_code, original_url, content = 'links', content_rowid = 'id',
  tokenize = 'trigram', detail = 'none', columnsize = 0
);
--> statement-breakpoint
INSERT INTO link_search (link_search) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER links_search_added AFTER INSERT ON links BEGIN
  INSERT INTO link_search (rowid, short_code, original_url)
  VALUES (new.id, new.short_code, new.original_url);
END;
--> statement-breakpoint
CREATE TRIGGER links_search_removed AFTER DELETE ON links BEGIN
  INSERT INTO link_search (link_search, rowid, short_code, original_url)
  VALUES ('delete', old.id, old.short_code, old.original_url);
END;
--> statement-breakpoint
CREATE TRIGGER links_search_changed AFTER UPDATE OF short_code, original_url ON links BEGIN
  INSERT INTO link_search (link_search, rowid, short_code, original_url)
  VALUES ('delete', old.id, old.short_code, old.original_url);
  INSERT INTO link_search (rowid, short_code, original_url)
  VALUES (new.id, new.short_code, new.original_url);
END;
