// Reading what the release wrote, independently of scripts/release/: the archives' entries
// (GNU tar lists a .tar.gz; a .zip is read here from its central directory) and the
// header of each executable, which says the OS and CPU it is for.

import { run } from './binary.ts';

export interface ListedEntry {
  path: string;
  /** Permission bits, e.g. 0o755. */
  mode: number;
  folder: boolean;
  /** `uid/gid`, as numbers. */
  owner: string;
  /** Seconds since 1970. */
  mtime: number;
  size: number;
}

/** The entries of a .tar.gz in their order, as `tar -tv` lists them. */
export async function tarEntries(archive: string): Promise<ListedEntry[]> {
  const listing = await run(['tar', '--numeric-owner', '--full-time', '-tvzf', archive], {
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC' },
  });
  if (listing.code !== 0) throw new Error(`tar -tvzf ${archive}: ${listing.stderr}`);
  return listing.stdout
    .trimEnd()
    .split('\n')
    .map((line) => {
      const match = /^([d-])([rwx-]{9}) (\d+\/\d+) +(\d+) (\S+ \S+) (.+)$/.exec(line);
      if (!match) throw new Error(`unexpected tar listing: ${line}`);
      const [, kind, bits, owner, size, time, path] = match as unknown as string[];
      return {
        path: path as string,
        mode: permissions(bits as string),
        folder: kind === 'd',
        owner: owner as string,
        mtime: Date.parse(`${(time as string).replace(' ', 'T')}Z`) / 1000,
        size: Number(size),
      };
    });
}

function permissions(bits: string): number {
  return [...bits].reduce((mode, bit) => (mode << 1) | (bit === '-' ? 0 : 1), 0);
}

export interface ZipEntry extends Omit<ListedEntry, 'owner'> {
  data: Uint8Array;
}

/**
 * The entries of a .zip from its central directory, each file inflated and its CRC-32
 * checked; the time read as UTC (zip times have no zone).
 */
export function zipEntries(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length - 22;
  if (view.getUint32(end, true) !== 0x06054b50) throw new Error('no end of central directory');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error(`bad central record ${i}`);
    const method = view.getUint16(at + 10, true);
    const [time, date] = [view.getUint16(at + 12, true), view.getUint16(at + 14, true)];
    const crc = view.getUint32(at + 16, true);
    const [packed, size] = [view.getUint32(at + 20, true), view.getUint32(at + 24, true)];
    const nameLength = view.getUint16(at + 28, true);
    const skip = nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const unixMode = view.getUint32(at + 38, true) >>> 16;
    const local = view.getUint32(at + 42, true);
    const path = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + skip;

    if (view.getUint32(local, true) !== 0x04034b50) throw new Error(`bad local header: ${path}`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const stored = bytes.subarray(start, start + packed);
    const data = method === 8 ? Bun.inflateSync(stored as Uint8Array<ArrayBuffer>) : stored.slice();
    if (data.length !== size || Bun.hash.crc32(data) !== crc) {
      throw new Error(`${path}: size or CRC-32 does not match`);
    }
    entries.push({
      path,
      mode: unixMode & 0o7777,
      folder: (unixMode & 0o170000) === 0o040000,
      mtime:
        Date.UTC(
          (date >> 9) + 1980,
          ((date >> 5) & 15) - 1,
          date & 31,
          time >> 11,
          (time >> 5) & 63,
          (time & 31) * 2,
        ) / 1000,
      size,
      data,
    });
  }
  return entries;
}

export type ExecutableHeader =
  | { format: 'ELF'; machine: number; interpreter: string | undefined }
  | { format: 'Mach-O'; cpu: number }
  | { format: 'PE'; machine: number };

/** ELF e_machine values, Mach-O CPU types and PE machine values for the two architectures. */
export const MACHINES = {
  elf: { x64: 62, arm64: 183 },
  macho: { x64: 0x01000007, arm64: 0x0100000c },
  pe: { x64: 0x8664 },
};

/**
 * The header of a 64-bit little-endian executable: an ELF's machine and the program
 * interpreter its PT_INTERP names (the C library's loader), a Mach-O's CPU type, a PE's
 * machine. Throws on anything else.
 */
export function executableHeader(bytes: Uint8Array): ExecutableHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, false) === 0x7f454c46) {
    if (bytes[4] !== 2 || bytes[5] !== 1) throw new Error('not a 64-bit little-endian ELF');
    const phoff = Number(view.getBigUint64(32, true));
    const [phentsize, phnum] = [view.getUint16(54, true), view.getUint16(56, true)];
    let interpreter: string | undefined;
    for (let i = 0; i < phnum; i++) {
      const header = phoff + i * phentsize;
      if (view.getUint32(header, true) !== 3) continue; // PT_INTERP
      const offset = Number(view.getBigUint64(header + 8, true));
      const size = Number(view.getBigUint64(header + 32, true));
      interpreter = new TextDecoder()
        .decode(bytes.subarray(offset, offset + size))
        .replace(/\0+$/, '');
    }
    return { format: 'ELF', machine: view.getUint16(18, true), interpreter };
  }
  if (view.getUint32(0, true) === 0xfeedfacf) {
    return { format: 'Mach-O', cpu: view.getUint32(4, true) };
  }
  if (bytes[0] === 0x4d && bytes[1] === 0x5a) {
    const pe = view.getUint32(0x3c, true);
    if (view.getUint32(pe, false) !== 0x50450000) throw new Error('MZ without a PE header');
    return { format: 'PE', machine: view.getUint16(pe + 4, true) };
  }
  throw new Error('not an ELF, Mach-O or PE executable');
}
