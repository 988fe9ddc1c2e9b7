-- 0004_webhook_clicks_index: the webhooks that want clicks, indexed apart. Every click batch
-- asks whether there is any; with none (the common case) this empty index answers at
-- once, where a scan of all webhooks would grow with their number.
CREATE INDEX `webhooks_clicks` ON `webhooks` (`user_id`) WHERE instr(',' || events || ',', ',clicks,') > 0;