// A Bun macro: draws kurz's icon (the shapes of assets/favicon.svg) as the PNG files an
// installed web app wants beside the SVG (192 and 512 pixels), when kurz is bundled, with
// no image library: each pixel's cover by the rounded square and the two strokes comes
// from their distance functions, and the PNG is written by hand (zlib from node:zlib).

import { deflateSync } from 'node:zlib';

/** The sizes the manifest names; Android's launcher takes 192, its splash screen 512. */
export const ICON_SIZES = [192, 512] as const;

const BLUE = [0x1d, 0x4f, 0xd8] as const;
const VIEW = 32; // favicon.svg's viewBox
const RADIUS = 7; // its rect's rx
const HALF_STROKE = 1.75; // its stroke-width, halved
const SEGMENTS: [number, number, number, number][] = [
  [11, 7.5, 11, 24.5],
  [21.5, 9.5, 14, 17],
  [14, 17, 21.5, 24.5],
];

/** icon-{size}.png → the file in base64, for each size (a macro's answer must be text). */
export function appIcons(): Record<string, string> {
  const icons: Record<string, string> = {};
  for (const size of ICON_SIZES) {
    icons[`icon-${size}.png`] = Buffer.from(iconPng(size)).toString('base64');
  }
  return icons;
}

export function iconPng(size: number): Uint8Array {
  const scale = size / VIEW;
  const row = 1 + size * 4; // a filter byte (0: none), then RGBA
  const pixels = new Uint8Array(row * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const px = (x + 0.5) / scale;
      const py = (y + 0.5) / scale;
      // Cover: half a pixel either side of the edge blends, as a renderer's anti-aliasing.
      const square = clamp(0.5 - roundedSquare(px, py) * scale);
      const stroke = clamp(0.5 - (strokes(px, py) - HALF_STROKE) * scale);
      const at = y * row + 1 + x * 4;
      for (let c = 0; c < 3; c++) {
        pixels[at + c] = Math.round((BLUE[c] ?? 0) + (255 - (BLUE[c] ?? 0)) * stroke);
      }
      pixels[at + 3] = Math.round(255 * square);
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, size);
  view.setUint32(4, size);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits a channel, RGBA, deflate, no filter method, no interlace
  return concat([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', new Uint8Array(deflateSync(pixels, { level: 9 }))),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

const clamp = (value: number) => Math.min(1, Math.max(0, value));

/** Signed distance to the rounded square (negative inside). */
function roundedSquare(x: number, y: number): number {
  const half = VIEW / 2;
  const qx = Math.abs(x - half) - (half - RADIUS);
  const qy = Math.abs(y - half) - (half - RADIUS);
  const outside = Math.hypot(Math.max(qx, 0), Math.max(qy, 0));
  return outside + Math.min(Math.max(qx, qy), 0) - RADIUS;
}

/** Distance to the nearest stroke's centre line (round caps and joins, as the SVG's). */
function strokes(x: number, y: number): number {
  let nearest = Number.POSITIVE_INFINITY;
  for (const [ax, ay, bx, by] of SEGMENTS) {
    const dx = bx - ax;
    const dy = by - ay;
    const t = clamp(((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy));
    nearest = Math.min(nearest, Math.hypot(x - ax - t * dx, y - ay - t * dy));
  }
  return nearest;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
