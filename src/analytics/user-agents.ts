// What a click's User-Agent says of the browser, system and device behind it, and whether a
// bot sent it. The parsing is ua-parser-js 1.x (MIT; 2.x is AGPL) and isbot's list, not ours.

import { isbot } from 'isbot';
import { UAParser } from 'ua-parser-js';
import { remembered } from '../domain/remembered.ts';

export interface AgentInfo {
  /** The parser's browser name ("Chrome", "Mobile Safari", "Edge", …), or "Unknown". */
  readonly browser: string;
  /** The parser's system name ("Windows", "Mac OS", "iOS", "Android", "Linux", …), or "Unknown". */
  readonly os: string;
  /**
   * "mobile", "tablet", "console", "smarttv", "wearable", "embedded" or "xr" when the parser
   * names a type; "desktop" when it names none but knows the browser or system (desktop
   * agents carry no device token); "unknown" when it knows nothing; "bot" for a bot.
   */
  readonly device: string;
  readonly bot: boolean;
}

export const UNKNOWN_NAME = 'Unknown';

/**
 * No User-Agent at all, or an empty one. isbot does not call it a bot (it flags what an agent
 * says, and this says nothing), so neither do we: such clicks are kept apart by their
 * "unknown" device, not counted as robots, which would hide clients that strip the header.
 */
const NO_AGENT: AgentInfo = Object.freeze({
  browser: UNKNOWN_NAME,
  os: UNKNOWN_NAME,
  device: 'unknown',
  bot: false,
});

/** Agents remembered: the same few hundred strings make almost every click. */
export const AGENT_CACHE_SIZE = 10_000;

const parseRemembered = remembered(AGENT_CACHE_SIZE, (userAgent) => parse(userAgent));

/**
 * Describes a User-Agent. Parsing takes tens of microseconds, so results are remembered (up
 * to AGENT_CACHE_SIZE strings, the oldest dropped first) and returned as shared frozen objects.
 */
export function describeAgent(userAgent: string | null): AgentInfo {
  if (userAgent === null || userAgent === '') return NO_AGENT;
  return parseRemembered(userAgent);
}

function parse(userAgent: string): AgentInfo {
  const result = UAParser(userAgent);
  const browser = result.browser.name;
  const os = result.os.name;
  const bot = isbot(userAgent);
  let device: string;
  if (bot) device = 'bot';
  else if (result.device.type !== undefined) device = result.device.type;
  else if (browser !== undefined || os !== undefined) device = 'desktop';
  else device = 'unknown';
  return Object.freeze({
    browser: browser || UNKNOWN_NAME,
    os: os || UNKNOWN_NAME,
    device,
    bot,
  });
}
