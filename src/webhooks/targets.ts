// Where a webhook may send: to a host whose every address is public, unless the operator
// allows private targets (--webhook-allow-private). Checked when a webhook is registered
// and again before each delivery, since DNS answers change; and a delivery connects to
// the very address that was checked (the name goes in Host and TLS's SNI), so a DNS
// server cannot answer "public" to the check and "private" to the connection.

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { badRequest, Messages } from '../domain/errors.ts';
import { isPublicAddress } from '../net/public-address.ts';

/** Every address a host name resolves to. */
export type Resolve = (host: string) => Promise<string[]>;

/** The system's resolver (getaddrinfo, as fetch itself would use). */
export const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export interface TargetPolicy {
  /** --webhook-allow-private: http:// and private, loopback and link-local targets too. */
  allowPrivate: boolean;
  resolve: Resolve;
}

/** A target refused: `message` is the API's, `reason` says why in words for a delivery's log. */
export class TargetRefused extends Error {
  constructor(
    override readonly message: typeof Messages.webhookPrivate | typeof Messages.webhookUnresolved,
    readonly reason: string,
  ) {
    super(message);
    this.name = 'TargetRefused';
  }
}

/** A URL's host as an address or name: IPv6 without its brackets, a name without its final dot. */
function hostOf(url: URL): string {
  const host = url.hostname;
  if (host.startsWith('[')) return host.slice(1, -1);
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/**
 * The address a delivery to `url` connects to: the host itself when it is an address
 * (the URL parser has already read `2130706433`, `0x7f.1` and the like as the dotted
 * IPv4 address they are), else the first of its DNS answers, all of which must be public.
 * Throws TargetRefused.
 */
export async function publicAddressOf(url: URL, resolve: Resolve): Promise<string> {
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      const code = (error as { code?: string }).code ?? String(error);
      throw new TargetRefused(Messages.webhookUnresolved, `${host} cannot be resolved (${code})`);
    }
    if (addresses.length === 0) {
      throw new TargetRefused(Messages.webhookUnresolved, `${host} has no address`);
    }
  }
  const hidden = addresses.find((address) => !isPublicAddress(address));
  if (hidden !== undefined) {
    throw new TargetRefused(
      Messages.webhookPrivate,
      `${host} is not a public address (${hidden}); see --webhook-allow-private`,
    );
  }
  return addresses[0] as string;
}

/** Registration's check: 400 with the API's message when the target is refused. */
export async function checkTarget(url: URL, policy: TargetPolicy): Promise<void> {
  if (policy.allowPrivate) return;
  try {
    await publicAddressOf(url, policy.resolve);
  } catch (error) {
    if (error instanceof TargetRefused) throw badRequest(error.message);
    throw error;
  }
}

/** What fetch is given for one delivery. */
export interface PinnedTarget {
  url: string;
  /** The Host header, when the URL names an address rather than the host. */
  host?: string;
  /** The name the server's certificate must carry (and SNI), when the URL names an address. */
  serverName?: string;
}

/**
 * The request of a delivery to `url`: with private targets allowed, the URL as it is;
 * otherwise to the checked address, the host name kept in Host and in TLS (Bun's fetch
 * verifies the certificate against `tls.serverName`).
 */
export async function pinnedTarget(url: URL, policy: TargetPolicy): Promise<PinnedTarget> {
  if (policy.allowPrivate) return { url: url.href };
  const address = await publicAddressOf(url, policy.resolve);
  const host = hostOf(url);
  if (isIP(host) !== 0) return { url: url.href };
  return pinTo(url, address);
}

/** `url` with its host replaced by `address`; the name kept for Host and the certificate. */
export function pinTo(url: URL, address: string): PinnedTarget {
  const pinned = new URL(url.href);
  pinned.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return { url: pinned.href, host: url.host, serverName: hostOf(url) };
}
