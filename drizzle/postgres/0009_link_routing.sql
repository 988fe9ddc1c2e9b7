-- link_routing: a link's redirect rules and A/B variants (domain/link-routing.ts), and the
-- preview link-preview crawlers are shown, each as JSON text; null for every link before.
ALTER TABLE "links" ADD COLUMN "rules" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "variants" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "preview" text;