import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A WAL segment's file name: 24 hexadecimal digits (timeline, log and segment numbers). */
const SEGMENT = /^[0-9A-F]{24}$/;

/** Bytes read of a segment's first page header: `xlp_magic`, `xlp_info`, `xlp_tli`, then `xlp_pageaddr`. */
const HEADER_BYTES = 16;
const PAGEADDR_OFFSET = 8;

/** The number of the segment `name`, for segments of `size` bytes. */
function segmentNumber(name: string, size: number): bigint {
  const perLog = 0x1_0000_0000n / BigInt(size);
  return BigInt(`0x${name.slice(8, 16)}`) * perLog + BigInt(`0x${name.slice(16, 24)}`);
}

/** The name of the segment after `name` (segments of `size` bytes, the same timeline). */
export function nextSegmentName(name: string, size: number): string {
  const perLog = 0x1_0000_0000n / BigInt(size);
  const next = segmentNumber(name, size) + 1n;
  const hex = (n: bigint) => n.toString(16).toUpperCase().padStart(8, '0');
  return `${name.slice(0, 8)}${hex(next / perLog)}${hex(next % perLog)}`;
}

/**
 * True when the open file `fd` holds the WAL segment `name`: its first page header carries the segment's own
 * start address, as Postgres writes it when it begins the segment. A file Postgres prepared ahead of use
 * holds zeros there, and a recycled one (an old segment renamed to a future name at a checkpoint) the
 * address of the segment it was; neither holds any commit yet.
 */
export function holdsSegment(fd: number, name: string, size: number): boolean {
  const header = Buffer.alloc(HEADER_BYTES);
  if (readSync(fd, header, 0, HEADER_BYTES, 0) < HEADER_BYTES) return false;
  return header.readBigUInt64LE(PAGEADDR_OFFSET) === segmentNumber(name, size) * BigInt(size);
}

/** The segment file Postgres writes now, opened for syncing, with the segment size. */
export interface OpenSegment {
  name: string;
  fd: number;
  size: number;
}

/**
 * Finds the segment of `walDir` Postgres writes now: the highest-named one that holds its own segment
 * ({@link holdsSegment}). The highest name alone is not it once a checkpoint has recycled old segments
 * into future names. Undefined when the folder holds no segment in use.
 */
export function openCurrentSegment(walDir: string): OpenSegment | undefined {
  const names = readdirSync(walDir)
    .filter((n) => SEGMENT.test(n))
    .sort()
    .reverse();
  for (const name of names) {
    const fd = openSync(join(walDir, name), 'r');
    const size = fstatSync(fd).size;
    // A segment's size is a power of two; anything else is not a segment Postgres wrote.
    if (size > 0 && (size & (size - 1)) === 0 && holdsSegment(fd, name, size)) return { name, fd, size };
    closeSync(fd);
  }
  return undefined;
}

/** Opens `path` for reading, or undefined when it does not exist (yet). */
export function openIfPresent(path: string): number | undefined {
  // Asked on every sync while the next segment does not exist: a `stat` that does not throw is cheaper
  // than the error of a failed open.
  if (!statSync(path, { throwIfNoEntry: false })) return undefined;
  try {
    return openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
