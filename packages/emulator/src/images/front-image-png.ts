import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

const WIDTH = 160;
const HEIGHT = 200;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A placeholder portrait standing in for the captured front image: a raster PNG, as a real
 * service would send, so `fetchFrontImage` accepts it under its default (raster-only) types.
 * Its colours come from the image id, so sessions are told apart at a glance; it carries no
 * personal data.
 */
export function renderFrontImagePng(imageId: string): Buffer {
  const digest = createHash('sha256').update(imageId).digest();
  const background = [digest[0]! | 0x80, digest[1]! | 0x80, digest[2]! | 0x80];
  const face = [0xe0, 0xb0 + (digest[3]! % 0x30), 0x90 + (digest[4]! % 0x30)];
  // One filter byte (0: none) before each row of RGB pixels.
  const raw = Buffer.alloc(HEIGHT * (1 + WIDTH * 3));
  for (let y = 0; y < HEIGHT; y++) {
    const row = y * (1 + WIDTH * 3);
    for (let x = 0; x < WIDTH; x++) {
      const inFace = ((x - 80) / 40) ** 2 + ((y - 85) / 50) ** 2 <= 1;
      raw.set(inFace ? face : background, row + 1 + x * 3);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(WIDTH, 0);
  header.writeUInt32BE(HEIGHT, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, truecolour, no interlace
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
