// The schema of a link's stats (GET /api/links/{code}/stats): what the OpenAPI document
// shows, and the type buildStats returns. Its traffic fields serve a tag's stats too.

import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { Messages } from '../domain/errors.ts';

const Entry = t.Object({ value: t.String(), clicks: Type.Integer() });
const Top = t.Array(Entry, { description: 'At most 10, most clicks first.' });

/**
 * The traffic of one link or of several (a tag's): every field of a stats answer but the
 * one naming what it is of, which each answer puts first.
 */
export const TRAFFIC_FIELDS = {
  from: t.String({ format: 'date' }),
  to: t.String({ format: 'date' }),
  clicks: Type.Integer({ description: 'All-time clicks.' }),
  range: t.Object(
    { clicks: Type.Integer(), humans: Type.Integer(), bots: Type.Integer() },
    { description: 'Clicks in the range, split into people and bots.' },
  ),
  days: t.Array(
    t.Object({
      date: t.String({ format: 'date' }),
      clicks: Type.Integer(),
      humans: Type.Integer(),
      bots: Type.Integer(),
    }),
    { description: 'Every day of the range, oldest first, zeros included.' },
  ),
  top: t.Object(
    {
      sources: Top,
      query_sources: Top,
      referrers: Top,
      browsers: Top,
      operating_systems: Top,
      devices: Top,
      countries: Top,
      routes: Top,
    },
    {
      description:
        "Creation sources and `?source=` apart; referrer hosts (`direct` without one); browsers, systems and device types as parsed from the User-Agent; countries (ISO 3166-1 alpha-2, `unknown`) from the client address, which is never stored; routes: what served each click, `rule:N` and `variant:N` (0-based, as in `rules` and `variants`) or `default` (the link's own target, and every click kept before routes).",
    },
  ),
};

export const LinkStats = t.Object(
  {
    short_code: t.String(),
    domain: t.Optional(
      t.String({ description: "The host of the link's short domain (a link's stats only)." }),
    ),
    ...TRAFFIC_FIELDS,
  },
  { title: 'LinkStats' },
);

/**
 * `?from=&to=` of a stats request. Read and checked by parseRange, which names the rule:
 * a schema's own refusal would not.
 */
export const RANGE_FIELDS = {
  from: t.Optional(
    t.String({
      error: Messages.statsRange,
      description: 'First UTC day, YYYY-MM-DD (default: 29 days before `to`).',
      examples: ['2026-11-01'],
    }),
  ),
  to: t.Optional(
    t.String({
      error: Messages.statsRange,
      description: 'Last UTC day, YYYY-MM-DD (default: today).',
      examples: ['2026-11-30'],
    }),
  ),
};

/** A stats request's query of nothing but its range. */
export const RangeQuery = t.Object(RANGE_FIELDS, { error: Messages.statsRange });
