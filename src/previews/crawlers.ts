// Whether a request comes from an app fetching a link's preview card (a chat, a social
// network), which is shown the preview page instead of being redirected.

import { isbot } from 'isbot';
import { remembered } from '../domain/remembered.ts';

/**
 * What the preview fetchers' User-Agents carry, matched anywhere in the string and in any
 * case. A search crawler (Googlebot, bingbot) is not on the list: it indexes the target,
 * and must see the redirect. Neither is Signal: it fetches previews on the sender's phone
 * with an ordinary browser's User-Agent, which nothing tells from a person's click.
 */
export const PREVIEW_FETCHER_TOKENS: readonly string[] = [
  // Facebook and Messenger; iMessage too, which sends
  // "facebookexternalhit/1.1 Facebot Twitterbot/1.0" after a Safari agent.
  'facebookexternalhit',
  // Facebook's other fetcher.
  'Facebot',
  // Meta's own crawler, listed beside facebookexternalhit in Meta's crawler documentation.
  'meta-externalagent',
  // X (Twitter).
  'Twitterbot',
  // LinkedIn.
  'LinkedInBot',
  // Slack, unfurling a link.
  'Slackbot-LinkExpanding',
  // Slack, fetching an unfurled link's image.
  'Slack-ImgProxy',
  // Discord.
  'Discordbot',
  // Telegram.
  'TelegramBot',
  // WhatsApp ("WhatsApp/2.23.20.0 A"): its app name and version, nothing else.
  'WhatsApp/',
  // Mastodon servers, each fetching the card for its own users ("http.rb/5.1.1 (Mastodon/4.2.1; …)").
  'Mastodon/',
  // Skype, and Microsoft Teams, which sends "SkypeUriPreview Preview/0.5".
  'SkypeUriPreview',
  // Pinterest.
  'Pinterestbot',
  // Embedly, behind the cards of Medium, Reddit and many others.
  'Embedly',
  // Bluesky's card service.
  'Bluesky Cardyb',
];

/**
 * One case-insensitive matcher for the whole list, its tokens taken literally. A token
 * alone could take a person for a crawler (an app's own browser may carry the app's name
 * and version), so isbot must agree too.
 */
const PREVIEW_FETCHER = new RegExp(PREVIEW_FETCHER_TOKENS.map(RegExp.escape).join('|'), 'i');

/** Agents remembered: the few fetchers send the same few strings again and again. */
export const CRAWLER_CACHE_SIZE = 1_000;

const crawlerAgent = remembered(
  CRAWLER_CACHE_SIZE,
  (userAgent) => PREVIEW_FETCHER.test(userAgent) && isbot(userAgent),
);

/**
 * True when `userAgent` is a link-preview fetcher's: isbot calls it a bot and it carries
 * one of PREVIEW_FETCHER_TOKENS. Results are remembered (up to CRAWLER_CACHE_SIZE
 * strings, the oldest dropped first).
 */
export function isPreviewCrawler(userAgent: string | null): boolean {
  if (userAgent === null || userAgent === '') return false;
  return crawlerAgent(userAgent);
}
