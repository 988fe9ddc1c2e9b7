// `kurz copy --from SOURCE --to TARGET`: its command line and its --help. It takes
// these two flags (or their variables) and no other.

import { checked, gather, readWords, valued } from './args.ts';
import { type Config, ConfigError, defaultConfig } from './config.ts';
import { parseDatabase } from './values.ts';

export const COPY_USAGE = `Usage:
  kurz copy --from SOURCE --to TARGET

Copies every user, link, click record and setting (the token key too, so tokens stay
valid) from one database into an empty one, then verifies the copy. SOURCE and TARGET
are SQLite paths or postgres:// URLs. Copying from a kurz that is running copies its
state when the copy starts; stop it first for a copy that misses nothing.

Flags:
  --from SOURCE   KURZ_COPY_FROM   the database to copy (the variable keeps a password out of ps)
  --to TARGET     KURZ_COPY_TO     the empty database to copy into
`;

/** `config` holds the defaults both databases are opened with. */
export interface CopyCommand {
  kind: 'copy';
  config: Config;
  from: string;
  to: string;
}

const COPY_FLAGS = { '--from': 'KURZ_COPY_FROM', '--to': 'KURZ_COPY_TO' } as const;

export function parseCopy(
  args: readonly string[],
  env: Record<string, string | undefined>,
): CopyCommand {
  const given = gather(readWords(args, valued(COPY_FLAGS)), env, COPY_FLAGS, 'copy');
  const database = (flag: keyof typeof COPY_FLAGS) => {
    const entry = given.get(flag);
    if (entry === undefined) {
      throw new ConfigError(
        `copy needs ${flag} (or ${COPY_FLAGS[flag]}): a SQLite path or a postgres:// URL`,
      );
    }
    return checked(entry.label, () => parseDatabase(entry.value));
  };
  return { kind: 'copy', config: defaultConfig(), from: database('--from'), to: database('--to') };
}
