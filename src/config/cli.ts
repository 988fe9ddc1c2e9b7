// The command line: `kurz [COMMAND] [flags]`, each flag with its environment variable.
// Flags win over the environment; a bad one is reported by name in one line (a
// ConfigError, which the executable turns into exit status 2).

import { gather, readWords, valued } from './args.ts';
import { type Config, ConfigError } from './config.ts';
import { COPY_USAGE, type CopyCommand, parseCopy } from './copy.ts';
import { REDIRECT_URI_SHOWN, SERVER_FLAG_ENVS, serverConfig } from './flags.ts';
import { HEALTHCHECK_USAGE, type HealthcheckCommand, parseHealthcheck } from './healthcheck.ts';
import { USAGE } from './help.ts';
import { oidcRedirectUri } from './oidc-flags.ts';
import { isTool, parseTool, TOOL_SPECS, TOOLS, type ToolCommand } from './tools.ts';

/** Commands that read the server's configuration; `serve` is the default. */
const COMMANDS = ['serve', 'migrate', 'rotate-secret'] as const;
type ConfiguredCommand = (typeof COMMANDS)[number];

export type Command =
  | { kind: ConfiguredCommand; config: Config }
  | CopyCommand
  | HealthcheckCommand
  | ToolCommand
  /** `usage`: the text to print (the whole program's, or one command's). */
  | { kind: 'help'; usage: string }
  | { kind: 'version' };

/** Reads argv (without the executable) and the environment; throws ConfigError on bad input. */
export function parseCommandLine(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): Command {
  const word = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : undefined;
  if (argv.includes('--help') || argv.includes('-h')) {
    return { kind: 'help', usage: helpFor(word, baseUrlGiven(argv, env)) };
  }
  if (argv.includes('--version') || argv.includes('-v')) return { kind: 'version' };

  const rest = argv.slice(word === undefined ? 0 : 1);
  if (word === 'copy') return parseCopy(rest, env);
  if (word === 'healthcheck') return parseHealthcheck(rest, env);
  if (word !== undefined && isTool(word)) return parseTool(word, rest, env);
  if (word !== undefined && !(COMMANDS as readonly string[]).includes(word)) {
    const known = [...COMMANDS, 'copy', 'healthcheck', ...TOOLS].join(', ');
    throw new ConfigError(`unknown command "${word}" (expected ${known}; see --help)`);
  }
  const kind = (word ?? 'serve') as ConfiguredCommand;
  const given = gather(readWords(rest, valued(SERVER_FLAG_ENVS)), env, SERVER_FLAG_ENVS);
  return { kind, config: serverConfig(given) };
}

/**
 * The usage text of `kurz [WORD] --help`: one command's, or the whole program's, which
 * shows the OIDC redirect URI of the base URL when one is given (flag or variable).
 */
function helpFor(word: string | undefined, baseUrl: string | undefined): string {
  if (word !== undefined && isTool(word)) return TOOL_SPECS[word].usage;
  if (word === 'copy') return COPY_USAGE;
  if (word === 'healthcheck') return HEALTHCHECK_USAGE;
  if (baseUrl === undefined) return USAGE;
  return USAGE.replace(REDIRECT_URI_SHOWN, oidcRedirectUri(baseUrl));
}

/** The --base-url given beside --help, when it is a usable one. */
function baseUrlGiven(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): string | undefined {
  const at = argv.indexOf('--base-url');
  const inline = argv.find((word) => word.startsWith('--base-url='));
  const value = at >= 0 ? argv[at + 1] : (inline?.slice('--base-url='.length) ?? env.KURZ_BASE_URL);
  const url = value === undefined ? null : URL.parse(value);
  return url && /^https?:$/.test(url.protocol) ? (value as string) : undefined;
}
