// Which requests are link-preview fetchers: the apps' own User-Agents, as they send them,
// are; people's browsers, search crawlers and other bots are not.

import { describe, expect, test } from 'bun:test';
import { isbot } from 'isbot';
import {
  CRAWLER_CACHE_SIZE,
  isPreviewCrawler,
  PREVIEW_FETCHER_TOKENS,
} from '../../src/previews/crawlers.ts';

const FETCHERS: [string, string][] = [
  ['Facebook', 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)'],
  ['Facebook (Facebot)', 'Facebot'],
  [
    'Meta',
    'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
  ],
  ['X (Twitter)', 'Twitterbot/1.0'],
  [
    'LinkedIn',
    'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
  ],
  ['Slack', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'],
  ["Slack's image proxy", 'Slack-ImgProxy (+https://api.slack.com/robots)'],
  [
    'Discord',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.10; rv:38.0) Gecko/20100101 Firefox/38.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
  ],
  ['Telegram', 'TelegramBot (like TwitterBot)'],
  ['WhatsApp on Android', 'WhatsApp/2.23.20.0 A'],
  ['WhatsApp on iOS', 'WhatsApp/2.23.20.0 i'],
  [
    'iMessage',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
  ],
  ['Mastodon', 'http.rb/5.1.1 (Mastodon/4.2.10; +https://mastodon.social/)'],
  ['Skype', 'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5'],
  [
    'Microsoft Teams',
    'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com',
  ],
  ['Pinterest', 'Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)'],
  ['Embedly', 'Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)'],
  ['Bluesky', 'Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)'],
];

const PEOPLE: [string, string][] = [
  [
    'Chrome on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  ],
  [
    'Safari on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  ],
  ['Firefox on Linux', 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0'],
  [
    'Safari on iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  ],
  [
    'Chrome on Android',
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  ],
  ['Firefox on Android', 'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0'],
];

const OTHER_BOTS: [string, string][] = [
  ['Googlebot', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'],
  [
    'Googlebot for smartphones',
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.201 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  ],
  ['bingbot', 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)'],
  ['AhrefsBot', 'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)'],
  ['curl', 'curl/8.5.0'],
];

describe('link-preview crawlers', () => {
  test.each(FETCHERS)("%s's fetcher is one", (_app, userAgent) => {
    expect(isPreviewCrawler(userAgent)).toBe(true);
  });

  test.each(PEOPLE)('%s is not one', (_browser, userAgent) => {
    expect(isPreviewCrawler(userAgent)).toBe(false);
  });

  test.each(OTHER_BOTS)('%s is a bot but not a preview fetcher', (_bot, userAgent) => {
    expect(isbot(userAgent)).toBe(true);
    expect(isPreviewCrawler(userAgent)).toBe(false);
  });

  test('no User-Agent, or an empty one, is not one', () => {
    expect(isPreviewCrawler(null)).toBe(false);
    expect(isPreviewCrawler('')).toBe(false);
  });

  test('tokens match in any case, but only in what isbot calls a bot', () => {
    expect(isPreviewCrawler('TWITTERBOT/1.0')).toBe(true);
    expect(isPreviewCrawler('discordbot/2.0')).toBe(true);
    // A browser's agent that carries an app's token is a person.
    const inApp =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 WhatsApp/2.24.8.78';
    expect(isbot(inApp)).toBe(false);
    expect(isPreviewCrawler(inApp)).toBe(false);
  });

  test("every token on the list is met in an app's agent above, and only as a whole", () => {
    for (const token of PREVIEW_FETCHER_TOKENS) {
      const met = FETCHERS.filter(([, agent]) => agent.toLowerCase().includes(token.toLowerCase()));
      expect({ token, met: met.length > 0 }).toEqual({ token, met: true });
    }
    // A bot that names an app without the fetcher's own token is not its fetcher.
    expect(isPreviewCrawler('Mastodon 4.2 bot')).toBe(false);
    expect(isPreviewCrawler('Bluesky-Feed-Bot/1.0')).toBe(false);
    expect(isPreviewCrawler('Slackbot 1.0 (+https://api.slack.com/robots)')).toBe(false);
  });

  test('answers stay right once more agents were seen than are remembered', () => {
    const [, twitter] = FETCHERS[3] as [string, string];
    expect(isPreviewCrawler(twitter)).toBe(true);
    for (let i = 0; i <= CRAWLER_CACHE_SIZE; i++) {
      expect(isPreviewCrawler(`Twitterbot/${i}.0`)).toBe(true);
      expect(isPreviewCrawler(`Mozilla/5.0 (X11; Linux x86_64; rv:${i}.0) Firefox/${i}.0`)).toBe(
        false,
      );
    }
    expect(isPreviewCrawler(twitter)).toBe(true);
    expect(isPreviewCrawler((PEOPLE[0] as [string, string])[1])).toBe(false);
  });
});
