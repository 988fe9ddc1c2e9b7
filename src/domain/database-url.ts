// Which database a --db value names, and how it may be shown: a PostgreSQL URL may
// carry a password, which must never reach a log line or the start-up line.

/** postgres:// or postgresql:// (any case): PostgreSQL; anything else is a SQLite path. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** The --db value as logs may show it: a URL without its password or secret parameters. */
export function describeDatabase(db: string): string {
  if (!isPostgresUrl(db)) return db;
  const url = URL.parse(db);
  if (url === null) return 'postgres://(unparsable URL)';
  if (url.password !== '') url.password = '***';
  for (const key of [...url.searchParams.keys()]) {
    if (/pass|secret|key|token|cert/i.test(key)) url.searchParams.set(key, '***');
  }
  return url.toString();
}
