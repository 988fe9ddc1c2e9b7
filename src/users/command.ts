// `kurz user add|list|passwd|promote|demote|disable|enable|remove`: the operator's
// account administration, on the database --db names, safe while kurz serves it: every
// request checks its token's user, token version, role and state in the database, so a
// removed or disabled account, a new password or a new role takes effect at once.

import { PasswordHasher } from '../auth/passwords.ts';
import type { ToolCommand } from '../config/tools.ts';
import { checkPassword, parseEmail } from '../domain/accounts.ts';
import { ApiError } from '../domain/errors.ts';
import { printable } from '../domain/printable.ts';
import type { Logger } from '../logger.ts';
import type { RemovedLinks } from '../store/accounts.ts';
import { openStore } from '../store/open.ts';
import type { Store } from '../store/store.ts';
import { PasswordInputError, readNewPassword } from './password-input.ts';

/** A refusal to say in one line and exit 1 (2 for a command line that cannot be run). */
class UserCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export async function userCommand(command: ToolCommand, log: Logger): Promise<number> {
  const [action, email] = command.args;
  let run: (store: Store) => Promise<string>;
  try {
    run = plan(action as string, email, command.options);
  } catch (error) {
    if (!(error instanceof UserCommandError)) throw error;
    log.error(`kurz: ${printable(error.message)}`);
    return error.exitCode;
  }
  const store = await openStore(command.config, log, { background: false });
  try {
    log.info(`kurz: ${await run(store)}`);
    return 0;
  } catch (error) {
    if (error instanceof UserCommandError || error instanceof PasswordInputError) {
      log.error(`kurz: ${printable(error.message)}`);
      return error instanceof UserCommandError ? error.exitCode : 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}

/** Checks the command line before the database is opened; the work to do on it. */
function plan(
  action: string,
  email: string | undefined,
  options: ToolCommand['options'],
): (store: Store) => Promise<string> {
  const needsEmail = EMAIL_ACTIONS.includes(action);
  if (!needsEmail && action !== 'list') {
    throw new UserCommandError(
      `unknown action "${action}" for user (expected add, list, passwd, promote, demote, disable, enable or remove; see kurz user --help)`,
      2,
    );
  }
  if (needsEmail !== (email !== undefined)) {
    throw new UserCommandError(
      needsEmail
        ? `user ${action} needs an EMAIL (see kurz user --help)`
        : 'user list takes no EMAIL (see kurz user --help)',
      2,
    );
  }
  const linkFlags = ['--with-links', '--keep-links'].filter((flag) => options.has(flag));
  if (action !== 'remove' && linkFlags.length > 0) {
    throw new UserCommandError(`${linkFlags[0]} is for user remove only`, 2);
  }
  if (action !== 'add' && options.has('--admin')) {
    throw new UserCommandError('--admin is for user add only (see kurz user promote)', 2);
  }
  switch (action) {
    case 'list':
      return listUsers;
    case 'add':
      return (store) => addUser(store, validEmail(email as string), options.has('--admin'));
    case 'passwd':
      return (store) => changePassword(store, validEmail(email as string));
    case 'promote':
    case 'demote':
    case 'disable':
    case 'enable':
      return (store) => changeStanding(store, validEmail(email as string), action);
    default: {
      if (linkFlags.length !== 1) {
        throw new UserCommandError(
          'user remove needs --with-links (delete their links and clicks) or --keep-links (keep their links, owned by no one)',
          2,
        );
      }
      const links: RemovedLinks = linkFlags[0] === '--with-links' ? 'delete' : 'keep';
      return (store) => removeUser(store, validEmail(email as string), links);
    }
  }
}

const EMAIL_ACTIONS = ['add', 'passwd', 'promote', 'demote', 'disable', 'enable', 'remove'];

function validEmail(raw: string): string {
  try {
    return parseEmail(raw);
  } catch (error) {
    if (error instanceof ApiError) throw new UserCommandError(`"${raw}": ${error.message}`, 2);
    throw error;
  }
}

/** A new password, read and checked by the rule registration uses; hashed as the server does. */
async function newPasswordHash(): Promise<string> {
  const password = await readNewPassword();
  try {
    checkPassword(password);
  } catch (error) {
    if (error instanceof ApiError) throw new UserCommandError(`${error.message}; nothing changed`);
    throw error;
  }
  return new PasswordHasher().hash(password);
}

async function addUser(store: Store, email: string, admin: boolean): Promise<string> {
  if ((await store.findUserByEmail(email)) !== undefined) {
    throw new UserCommandError(`a user ${email} exists already`);
  }
  const user = await store.createUser(email, await newPasswordHash());
  // Registered by someone else between the check and the insert.
  if (user === undefined) throw new UserCommandError(`a user ${email} exists already`);
  if (!admin) return `user ${email} added (id ${user.id})`;
  await store.setUserAdmin(user.id, true);
  return `admin ${email} added (id ${user.id})`;
}

/** promote, demote, disable, enable: one account's role or state, effective at once. */
async function changeStanding(
  store: Store,
  email: string,
  action: 'promote' | 'demote' | 'disable' | 'enable',
): Promise<string> {
  const user = await store.findUserByEmail(email);
  if (user === undefined) throw new UserCommandError(`no user ${email}`);
  switch (action) {
    case 'promote':
      if (user.admin) return `user ${email} is an admin already`;
      await store.setUserAdmin(user.id, true);
      return `user ${email} is now an admin`;
    case 'demote':
      if (!user.admin) return `user ${email} is no admin`;
      await store.setUserAdmin(user.id, false);
      return `user ${email} is no longer an admin`;
    case 'disable':
      if (user.disabledAt !== null) return `user ${email} is disabled already`;
      await store.setUserDisabled(user.id, Date.now());
      return `user ${email} disabled; their tokens and API keys no longer work, their links do`;
    default:
      if (user.disabledAt === null) return `user ${email} is not disabled`;
      await store.setUserDisabled(user.id, null);
      return `user ${email} enabled`;
  }
}

async function listUsers(store: Store): Promise<string> {
  const users = await store.listUsers();
  if (users.length === 0) return 'no users';
  const rows = [
    ['ID', 'EMAIL', 'LINKS', 'ROLE', 'STATUS', 'CREATED'],
    ...users.map((u) => [
      String(u.id),
      printable(u.email),
      String(u.links),
      u.admin ? 'admin' : 'user',
      u.disabledAt === null ? 'active' : 'disabled',
      new Date(u.createdAt).toISOString(),
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] as string).length)));
  const table = rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths?.[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
  return `${users.length} ${users.length === 1 ? 'user' : 'users'}\n${table}`;
}

async function changePassword(store: Store, email: string): Promise<string> {
  if ((await store.findUserByEmail(email)) === undefined) {
    throw new UserCommandError(`no user ${email}`);
  }
  if (!(await store.setPassword(email, await newPasswordHash()))) {
    throw new UserCommandError(`no user ${email}`);
  }
  return `password of ${email} changed; their existing tokens no longer work`;
}

async function removeUser(store: Store, email: string, links: RemovedLinks): Promise<string> {
  const removed = await store.removeUser(email, links);
  if (removed === undefined) throw new UserCommandError(`no user ${email}`);
  const n = `${removed.links} ${removed.links === 1 ? 'link' : 'links'}`;
  return links === 'delete'
    ? `user ${email} removed, with their ${n} and their clicks, API keys and webhooks`
    : `user ${email} removed, with their API keys and webhooks; their ${n} now ${removed.links === 1 ? 'belongs' : 'belong'} to no one`;
}
