// Reading a command line's words: node:util's parseArgs splits them into flags (with
// their values) and arguments; kurz's rules sit on top: the environment under the
// flags, the last value given winning, and a one-line ConfigError naming the flag.

import { parseArgs } from 'node:util';
import { ConfigError } from './config.ts';

/** One word of a command line: a flag with the value it took, or an argument. */
export type Word =
  | { kind: 'flag'; flag: string; value: string | undefined; inline: boolean }
  | { kind: 'argument'; value: string };

/**
 * The words of `args`. A flag of `takesValue` mapped to true takes the next word as its
 * value when not given one with `=`, even a word that starts with a dash (`--port -1`
 * is a bad port, not two flags). A flag not named there is kept as written (`-abc`,
 * `--`), for the caller to refuse by that name.
 */
export function readWords(args: readonly string[], takesValue: Record<string, boolean>): Word[] {
  const options = Object.fromEntries(
    Object.entries(takesValue).map(([flag, value]) => [
      flag.slice(2),
      { type: value ? ('string' as const) : ('boolean' as const) },
    ]),
  );
  // Not strict: kurz says itself which flag is unknown or lacks a value, in its own words.
  const { tokens } = parseArgs({
    args: [...args],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const words: Word[] = [];
  let lastIndex = -1;
  for (const token of tokens) {
    if (token.kind === 'positional') {
      words.push({ kind: 'argument', value: token.value });
      continue;
    }
    // parseArgs splits `-abc` into three tokens of one index: it is one unknown word.
    if (token.index === lastIndex) continue;
    lastIndex = token.index;
    const raw = args[token.index] as string;
    const eq = raw.indexOf('=');
    const flag = token.kind === 'option-terminator' || eq === -1 ? raw : raw.slice(0, eq);
    const value = token.kind === 'option' ? token.value : undefined;
    const inline = token.kind === 'option' && token.inlineValue === true;
    words.push({ kind: 'flag', flag, value, inline });
  }
  return words;
}

/** A value given for a flag, and the name of where it came from for a message. */
export interface GivenValue {
  /** The flag, or `FLAG (from VARIABLE)` for a value read from the environment. */
  label: string;
  value: string;
  fromEnv: boolean;
}

export type Given = Map<string, GivenValue>;

/**
 * The values given for `flags` (each flag with its environment variable): the
 * environment first, then flags over it; the last value given for a flag wins. An
 * empty variable counts as not set. Throws for a word that is no flag of `flags`
 * (`command` names whose flags they are) or a flag without its value.
 */
export function gather(
  words: readonly Word[],
  env: Record<string, string | undefined>,
  flags: Record<string, string>,
  command?: string,
): Given {
  const given: Given = new Map();
  for (const [flag, name] of Object.entries(flags)) {
    const value = env[name];
    if (value !== undefined && value !== '') {
      given.set(flag, { label: `${flag} (from ${name})`, value, fromEnv: true });
    }
  }
  for (const word of words) {
    const flag = word.kind === 'flag' ? word.flag : word.value;
    if (word.kind === 'argument' || !Object.hasOwn(flags, flag)) {
      throw new ConfigError(`unknown flag ${flag}${command ? ` for ${command}` : ''} (see --help)`);
    }
    if (word.value === undefined) throw new ConfigError(`${flag} needs a value`);
    given.set(flag, { label: flag, value: word.value, fromEnv: false });
  }
  return given;
}

/** Every flag of `flags` taking a value, for readWords(). */
export function valued(flags: Record<string, string>): Record<string, boolean> {
  return Object.fromEntries(Object.keys(flags).map((flag) => [flag, true]));
}

/** `read()`'s result; a message it throws becomes a ConfigError naming `label`. */
export function checked<T>(label: string, read: () => T): T {
  try {
    return read();
  } catch (problem) {
    if (typeof problem !== 'string') throw problem;
    throw new ConfigError(`${label} ${problem}`);
  }
}
