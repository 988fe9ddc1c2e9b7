// The release archives, written byte by byte: a .tar.gz (ustar) and a .zip whose bytes
// depend only on the files given and one time, so that the same commit gives the same
// archives. System tar and zip differ between versions and platforms in header fields,
// padding and extra fields, and put in owners and the time of packing unless told not to.

/** A file or folder (`path` ending in `/`) in an archive. */
export interface ArchiveEntry {
  path: string;
  /** Permission bits: 0o755 for folders and the executable, 0o644 otherwise. */
  mode: number;
  data?: Uint8Array;
}

/** Raw DEFLATE, the best of libdeflate's fast levels: same input, same bytes, on every platform. */
function deflate(data: Uint8Array): Uint8Array {
  return Bun.deflateSync(data as Uint8Array<ArrayBuffer>, { library: 'libdeflate', level: 9 });
}

const encoder = new TextEncoder();

/** The entries as a ustar archive, owner 0:0 and every time `mtime` (seconds), gzipped. */
export function tarGz(entries: ArchiveEntry[], mtime: number): Uint8Array {
  const blocks: Uint8Array[] = [];
  let length = 0;
  const push = (block: Uint8Array) => {
    blocks.push(block);
    length += block.length;
  };
  for (const entry of entries) {
    const data = entry.data ?? new Uint8Array();
    push(tarHeader(entry, data.length, mtime));
    push(data);
    if (data.length % 512 !== 0) push(new Uint8Array(512 - (data.length % 512)));
  }
  // Two empty blocks end the archive; tar pads it to whole records of 10 KiB.
  const end = 1024 + ((10240 - ((length + 1024) % 10240)) % 10240);
  push(new Uint8Array(end));
  return gzip(concat(blocks, length + end));
}

function tarHeader(entry: ArchiveEntry, size: number, mtime: number): Uint8Array {
  const header = new Uint8Array(512);
  const name = encoder.encode(entry.path);
  if (name.length > 100) throw new Error(`archive path longer than 100 bytes: ${entry.path}`);
  const field = (offset: number, width: number, value: number) => {
    // Octal digits, zero-padded, then a NUL.
    header.set(encoder.encode(`${value.toString(8).padStart(width - 1, '0')}\0`), offset);
  };
  header.set(name, 0);
  field(100, 8, entry.mode);
  field(108, 8, 0); // uid
  field(116, 8, 0); // gid
  field(124, 12, size);
  field(136, 12, mtime);
  header.fill(0x20, 148, 156); // the checksum counts its own field as spaces
  header[156] = entry.path.endsWith('/') ? 0x35 : 0x30; // '5' folder, '0' file
  header.set(encoder.encode('ustar\u000000'), 257);
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.set(encoder.encode(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
  return header;
}

/** gzip with no file name and no time (RFC 1952), OS "Unix" wherever it is made. */
function gzip(data: Uint8Array): Uint8Array {
  const body = deflate(data);
  const out = new Uint8Array(10 + body.length + 8);
  const view = new DataView(out.buffer);
  out.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]);
  out.set(body, 10);
  view.setUint32(10 + body.length, Bun.hash.crc32(data), true);
  view.setUint32(14 + body.length, data.length % 2 ** 32, true);
  return out;
}

/**
 * The entries as a zip archive, each file deflated, every time `mtime` (as UTC: zip times
 * have no zone), with Unix permission bits for unzip on Linux and macOS.
 */
export function zip(entries: ArchiveEntry[], mtime: number): Uint8Array {
  const { time, date } = dosTime(mtime);
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = encoder.encode(entry.path);
    const folder = entry.path.endsWith('/');
    const data = entry.data ?? new Uint8Array();
    const stored = folder ? data : deflate(data);
    const crc = Bun.hash.crc32(data);
    const method = folder ? 0 : 8;
    if (data.length >= 2 ** 32 || offset >= 2 ** 32) throw new Error('archive needs zip64');

    const local = new Uint8Array(30 + name.length);
    const l = new DataView(local.buffer);
    l.setUint32(0, 0x04034b50, true);
    l.setUint16(4, 20, true); // version needed: 2.0 (deflate, folders)
    l.setUint16(6, 0, true); // flags
    l.setUint16(8, method, true);
    l.setUint16(10, time, true);
    l.setUint16(12, date, true);
    l.setUint32(14, crc, true);
    l.setUint32(18, stored.length, true);
    l.setUint32(22, data.length, true);
    l.setUint16(26, name.length, true);
    l.setUint16(28, 0, true); // no extra fields
    local.set(name, 30);

    const record = new Uint8Array(46 + name.length);
    const c = new DataView(record.buffer);
    c.setUint32(0, 0x02014b50, true);
    c.setUint16(4, (3 << 8) | 20, true); // made by: Unix, 2.0 (so the mode below is read)
    c.setUint16(6, 20, true);
    c.setUint16(8, 0, true);
    c.setUint16(10, method, true);
    c.setUint16(12, time, true);
    c.setUint16(14, date, true);
    c.setUint32(16, crc, true);
    c.setUint32(20, stored.length, true);
    c.setUint32(24, data.length, true);
    c.setUint16(28, name.length, true);
    // extra and comment lengths, disk number, internal attributes: all 0
    const unixMode = (folder ? 0o040000 : 0o100000) | entry.mode;
    c.setUint32(38, ((unixMode << 16) | (folder ? 0x10 : 0)) >>> 0, true);
    c.setUint32(42, offset, true);
    record.set(name, 46);

    parts.push(local, stored);
    central.push(record);
    offset += local.length + stored.length;
  }
  const centralSize = central.reduce((total, record) => total + record.length, 0);
  const end = new Uint8Array(22);
  const e = new DataView(end.buffer);
  e.setUint32(0, 0x06054b50, true);
  e.setUint16(8, entries.length, true);
  e.setUint16(10, entries.length, true);
  e.setUint32(12, centralSize, true);
  e.setUint32(16, offset, true);
  return concat([...parts, ...central, end], offset + centralSize + end.length);
}

/** MS-DOS time and date fields (2-second steps, years from 1980) of a time in seconds, as UTC. */
function dosTime(seconds: number): { time: number; date: number } {
  const at = new Date(Math.max(seconds * 1000, Date.UTC(1980, 0, 1)));
  return {
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | (at.getUTCSeconds() >> 1),
    date: ((at.getUTCFullYear() - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
  };
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
