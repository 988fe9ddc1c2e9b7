-- link_routing: a link's redirect rules and A/B variants (domain/link-routing.ts), and the
-- preview link-preview crawlers are shown, each as JSON text; null for every link before.
ALTER TABLE `links` ADD `rules` text;--> statement-breakpoint
ALTER TABLE `links` ADD `variants` text;--> statement-breakpoint
ALTER TABLE `links` ADD `preview` text;