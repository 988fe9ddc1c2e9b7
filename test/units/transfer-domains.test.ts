// Where `kurz import` puts a row's domain, before anything is stored: the file's default
// domain on this kurz's default one, a host on the domain of that host (spelt any way the
// host normaliser allows), --domain-map over both; anything else unknown, named with its
// rows in one refusal, never placed elsewhere.

import { describe, expect, test } from 'bun:test';
import type { Domain } from '../../src/store/store.ts';
import {
  DomainMap,
  DomainMapError,
  describeUnplaced,
  parseDomainMap,
  unplacedDomains,
} from '../../src/transfer/domain-map.ts';

const GO: Domain = {
  id: 4,
  baseUrl: 'https://go.example.com',
  host: 'go.example.com',
  rootRedirect: null,
  notFoundRedirect: null,
  createdAt: 0,
};
const PORTED: Domain = { ...GO, id: 7, baseUrl: 'http://l.example:8080', host: 'l.example:8080' };
const store = { listDomains: async () => [GO, PORTED] };

const open = (...pairs: string[]) =>
  DomainMap.open(store, 'https://kurz.example', parseDomainMap(pairs));

describe('a row’s domain', () => {
  test('the file’s default one is this kurz’s; a host is its domain however it is spelt; the rest is unknown', async () => {
    const map = await open();
    expect(map.place(null)).toEqual({ kind: 'placed', domainId: 0 });
    for (const name of [
      'go.example.com',
      'GO.Example.com.',
      'https://go.example.com/',
      'go.example.com:443',
    ]) {
      expect(map.place(name)).toEqual({ kind: 'placed', domainId: 4 });
    }
    expect(map.place('l.example:8080')).toEqual({ kind: 'placed', domainId: 7 });
    // The default domain's host, --base-url's, is the default domain.
    expect(map.place('kurz.example')).toEqual({ kind: 'placed', domainId: 0 });
    expect(map.place('l.example')).toEqual({ kind: 'unknown', host: 'l.example' });
    expect(map.place('Bit.ly')).toEqual({ kind: 'unknown', host: 'bit.ly' });
    expect(map.place('not a host!')).toEqual({ kind: 'invalid' });
    expect(map.hostOf(0)).toBe('kurz.example');
    expect(map.hostOf(4)).toBe('go.example.com');
  });

  test('--domain-map places a host, a base URL or the file’s default domain; it wins over a domain of the same host', async () => {
    const map = await open(
      'bit.ly=default',
      'https://S.TEST/=https://go.example.com',
      'default=go.example.com',
      'go.example.com=kurz.example',
    );
    expect(map.place('bit.ly')).toEqual({ kind: 'placed', domainId: 0 });
    expect(map.place('s.test')).toEqual({ kind: 'placed', domainId: 4 });
    expect(map.place(null)).toEqual({ kind: 'placed', domainId: 4 });
    expect(map.place('go.example.com')).toEqual({ kind: 'placed', domainId: 0 });
  });

  test('a --domain-map that is no FROM=TO, maps one domain twice, or names a TO this kurz does not have is refused', async () => {
    const usage = (value: string[]) => {
      try {
        parseDomainMap(value);
      } catch (error) {
        return [(error as DomainMapError).usage, (error as Error).message];
      }
      return undefined;
    };
    expect(usage(['bit.ly'])).toEqual([
      true,
      '--domain-map "bit.ly": give FROM=TO, the file\'s domain and one of this kurz\'s (or default), e.g. bit.ly=default',
    ]);
    expect(usage(['=default'])?.[0]).toBe(true);
    expect(usage(['bit.ly='])?.[0]).toBe(true);
    expect(usage(['a b=default'])).toEqual([
      true,
      '--domain-map "a b=default": a b is not a host or base URL',
    ]);
    expect(usage(['bit.ly=default', 'BIT.LY=go.example.com'])).toEqual([
      true,
      '--domain-map maps BIT.LY twice ("bit.ly=default" and "BIT.LY=go.example.com")',
    ]);
    // The same pair twice says the same thing: no refusal.
    expect(usage(['bit.ly=default', 'bit.ly=default'])).toBeUndefined();
    await expect(open('bit.ly=l.example')).rejects.toThrow(
      new DomainMapError(
        '--domain-map "bit.ly=l.example": l.example is not a domain of this kurz (its domains: default (kurz.example), go.example.com, l.example:8080)',
        false,
      ),
    );
  });
});

describe('the refusal of a file with links on unplaced domains', () => {
  async function* names(domains: (string | null)[]): AsyncGenerator<string | null> {
    yield* domains;
  }

  test('counts each unplaced domain’s rows, leaving placed ones and hosts that are none to the import', async () => {
    const map = await open('bit.ly=default');
    const unplaced = await unplacedDomains(
      names(['s.test', null, 'bit.ly', 'go.example.com', 'S.test', 'x.example', '%%']),
      map,
    );
    expect(unplaced).toEqual(
      new Map([
        ['s.test', 2],
        ['x.example', 1],
      ]),
    );
    expect(describeUnplaced(unplaced)).toBe(
      'its links are on domains this kurz does not have: s.test (2 rows), x.example (1 row). Map each onto a domain of this kurz with --domain-map FROM=TO (TO: its host, or default), e.g. --domain-map s.test=default, or add it first (kurz domain add URL); nothing was imported',
    );
  });

  test('names the ten with the most rows, and counts the rest', () => {
    const many = new Map(Array.from({ length: 13 }, (_, i) => [`d${i}.example`, i + 1]));
    const text = describeUnplaced(many);
    expect(text).toStartWith(
      'its links are on domains this kurz does not have: d12.example (13 rows), d11.example (12 rows),',
    );
    expect(text).toContain('d3.example (4 rows), and 3 more. Map each');
    expect(text).toContain('e.g. --domain-map d12.example=default');
  });
});
