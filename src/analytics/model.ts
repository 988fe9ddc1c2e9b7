// The schema of a link's stats (GET /api/links/{code}/stats): what the OpenAPI document
// shows, and the type buildStats returns.

import { Type } from '@sinclair/typebox';
import { t } from 'elysia';

const Entry = t.Object({ value: t.String(), clicks: Type.Integer() });
const Top = t.Array(Entry, { description: 'At most 10, most clicks first.' });

export const LinkStats = t.Object(
  {
    short_code: t.String(),
    domain: t.Optional(
      t.String({ description: "The host of the link's short domain (a link's stats only)." }),
    ),
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
      },
      {
        description:
          'Creation sources and `?source=` apart; referrer hosts (`direct` without one); browsers, systems and device types as parsed from the User-Agent; countries (ISO 3166-1 alpha-2, `unknown`) from the client address, which is never stored.',
      },
    ),
  },
  { title: 'LinkStats' },
);
