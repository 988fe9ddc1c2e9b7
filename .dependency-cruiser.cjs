// The layering of src/, checked by `npm test` (scripts/test.sh) with dependency-cruiser.
// src/README.md says what each layer is for. From the bottom up:
//   domain/, logger.ts, version.ts,     pure rules and types, the one typed Config and
//   config/config.ts                    its defaults; imported by every layer
//   config/                             the command line, read with the bottom layer alone
//   analytics/                          pure analytics: classify a click, fold counts
//   clicks/ pipeline, retention,        the click pipeline's cadence and batching, which
//     group-commit                      both store engines run with their own steps
//   store/                              the storage contract and its two engines
//   everything else                     services, HTTP plumbing, routes, commands
//   app.ts, index.ts                    the app and the executable's entry point
// Rules name what may not be imported; a rule's comment says why.

/** A file in src/ outside the given folders and files (regular-expression alternatives). */
const outside = (allowed) => `^src/(?!(?:${allowed})(?:/|$))`;
const BASE = 'domain|logger\\.ts|version\\.ts|config/config\\.ts';
/** The parts of src/clicks/ that the store engines run; click-writer.ts sits above the store. */
const SHARED_CLICKS = 'clicks/(?:pipeline|retention|group-commit)\\.ts';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle leaves no order to read, test or change the modules in.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-the-bottom',
      comment: 'domain/, logger.ts, version.ts and config/config.ts import nothing else of kurz.',
      severity: 'error',
      from: { path: `^src/(?:${BASE})(?:/|$)` },
      to: { path: outside(BASE) },
    },
    {
      name: 'config-reads-no-feature',
      comment:
        'The command line is parsed with the bottom layer alone, so every layer may be configured.',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: outside(`${BASE}|config`) },
    },
    {
      name: 'analytics-is-pure',
      comment:
        'The analytics building blocks are read by the store: they import only the bottom layer.',
      severity: 'error',
      from: { path: '^src/analytics/' },
      to: { path: outside(`${BASE}|analytics`) },
    },
    {
      name: 'click-pipeline-below-store',
      comment: 'The cadence and batching the engines run know nothing of the store or above.',
      severity: 'error',
      from: { path: `^src/${SHARED_CLICKS}$` },
      to: { path: outside(`${BASE}|${SHARED_CLICKS}`) },
    },
    {
      name: 'store-below-services',
      comment: 'The store speaks of domain types only: no HTTP, routes, webhooks or links code.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: outside(`${BASE}|analytics|${SHARED_CLICKS}|store`) },
    },
    {
      name: 'engines-apart',
      comment: 'Neither store engine knows the other; what they share lives above them.',
      severity: 'error',
      from: { path: '^src/store/sqlite/' },
      to: { path: '^src/store/postgres/' },
    },
    {
      name: 'engines-apart-too',
      comment: 'Neither store engine knows the other; what they share lives above them.',
      severity: 'error',
      from: { path: '^src/store/postgres/' },
      to: { path: '^src/store/sqlite/' },
    },
    {
      name: 'engines-behind-the-contract',
      comment:
        'Features use the Store contract (store/open.ts picks the engine); only kurz copy, which moves rows between the two, reads an engine directly.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(?:store|copy)/' },
      to: { path: '^src/store/(?:sqlite|postgres)/' },
    },
    {
      name: 'http-plumbing-below-features',
      comment: 'http/ (errors, headers, bodies, logs) serves every feature and imports none.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: outside(`${BASE}|analytics|store|net|http`) },
    },
    {
      name: 'entry-points-on-top',
      comment: 'Nothing imports the app or the executable entry point but the entry point.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/index\\.ts$' },
      to: { path: '^src/(?:app|index)\\.ts$' },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API for dependency-cruiser to parse with; swc reads
    // the sources instead, type-only imports included.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  },
};
