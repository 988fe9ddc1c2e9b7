// `kurz --help`: the commands, then the server's flags written from their table
// (flags.ts): each with its variable, and under it its meaning and default.

import { SECTIONS, SERVER_FLAGS, type ServerFlag } from './flags.ts';
import { TOOL_SPECS } from './tools.ts';

/** Meanings are folded before this column, under their flag. */
const WIDTH = 100;
const INDENT = '      ';

/**
 * A flag's lines: `--flag VALUE` and its variable (its column `envAt` wide), then its
 * meaning and default, folded, on the lines under it.
 */
function flagLines({ flag, value, env, meaning, default: shown }: ServerFlag, envAt: number) {
  const lines = [`  ${`${flag} ${value}`.padEnd(envAt)}${env}`];
  let line = '';
  const text = shown === undefined ? meaning : `${meaning} (default ${shown})`;
  for (const word of text.split(' ')) {
    if (line !== '' && INDENT.length + line.length + 1 + word.length > WIDTH) {
      lines.push(INDENT + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(INDENT + line);
  return lines;
}

/** The flags by section, their variables in one column. */
function flagSections(): string {
  const envAt = Math.max(...SERVER_FLAGS.map((f) => f.flag.length + 1 + f.value.length)) + 2;
  return Object.entries(SECTIONS)
    .map(([section, heading]) =>
      [
        heading,
        ...SERVER_FLAGS.filter((f) => f.section === section).flatMap((f) => flagLines(f, envAt)),
      ].join('\n'),
    )
    .join('\n\n');
}

export const USAGE = `kurz — a self-hosted link shortener

Usage:
  kurz serve [flags]      start the service (the default command: kurz [flags])
  kurz migrate [flags]    apply database migrations and exit
  kurz rotate-secret [--db PATH]
                          replace the token key kept in the database (every token becomes invalid)
  kurz copy --from SOURCE --to TARGET
                          copy everything from one database into an empty one, then verify
  kurz healthcheck [--host H] [--port N] [--timeout SECS]
                          exit 0 when the kurz listening there answers GET /health "Healthy"
${Object.entries(TOOL_SPECS)
  .map(([name, spec]) => `  kurz ${name.padEnd(18)} ${spec.synopsis}`)
  .join('\n')}
  kurz --help | --version
  kurz COMMAND --help     what a command takes

${flagSections()}
`;
