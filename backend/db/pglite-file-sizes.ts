/**
 * File sizes of the embedded database's files kept in memory, so that Postgres's `lseek(fd, 0, SEEK_END)`
 * does not become a `stat` of the file each time (docs/performance.md#file-sizes-of-the-embedded-database).
 *
 * Postgres learns how many blocks a table or index has by seeking to the end of its file, and it does so
 * for every relation a statement plans or extends: several times per request. Native Postgres pays a cheap
 * system call for that. PGlite's files go through Emscripten's NODEFS, whose `llseek` answers `SEEK_END`
 * with Node's `fstatSync`, a system call plus a `Stats` object: about 3 µs on the reference machine, some
 * 6 % of the server's main thread under the reference load.
 *
 * One process holds the data directory (its lock file) and every change of a file's length goes through
 * NODEFS's stream and node operations: a write, a truncate (`ftruncate`, `truncate`, `fallocate`, an open
 * with `O_TRUNC`). So a length read once stays right if each of those operations moves or forgets it. The
 * sizes are kept per file node (Emscripten's inode), in a `WeakMap`: a file unlinked and made again is a new
 * node, and one renamed keeps its node and its length. Anything this module is unsure of (an append, a write
 * or truncate that failed, an open) forgets the length, which the next seek reads from the file again.
 */

/** `whence` of a seek from the end of the file. */
const SEEK_END = 2;
/** Emscripten's `O_APPEND`: the kernel writes at the end, wherever the stream's position is. */
const O_APPEND = 1024;

/** An Emscripten FS node: only its identity is used. */
type FsNode = object;

/** An open Emscripten stream, as NODEFS's operations receive it. */
interface FsStream {
  node: FsNode;
  flags: number;
}

/** The NODEFS operations this module wraps (Emscripten's `Module.NODEFS`). */
export interface NodeFsOps {
  stream_ops: {
    llseek(stream: FsStream, offset: number, whence: number): number;
    write(stream: FsStream, buffer: unknown, offset: number, length: number, position: number): number;
    open(stream: FsStream): void;
    setattr?(stream: FsStream, attr: { size?: number }): void;
  };
  node_ops: {
    setattr(node: FsNode, attr: { size?: number }): void;
  };
}

/** What {@link keepFileSizes} installed: the sizes it knows, for checks. */
export interface KeptFileSizes {
  /** The length kept for `node`, if one is. */
  sizeOf(node: FsNode): number | undefined;
}

/** Marks a NODEFS whose operations were already wrapped, so a second call does not wrap them twice. */
const WRAPPED = Symbol('platform.fileSizes');

/**
 * Wraps `nodefs`'s operations (one PGlite instance's, `pg.Module.NODEFS`) so that `SEEK_END` is answered from
 * a kept length. Call it before Postgres opens its files, or at any time after: a length is only kept from
 * the first seek that reads it, and every later change of it passes through the wrapped operations.
 */
export function keepFileSizes(nodefs: NodeFsOps): KeptFileSizes {
  const already = (nodefs as { [WRAPPED]?: KeptFileSizes })[WRAPPED];
  if (already) return already;
  const sizes = new WeakMap<FsNode, number>();
  const stream = nodefs.stream_ops;
  const { llseek, write, open, setattr: streamSetattr } = stream;
  const nodeSetattr = nodefs.node_ops.setattr;

  stream.llseek = (s, offset, whence) => {
    if (whence !== SEEK_END) return llseek(s, offset, whence);
    let size = sizes.get(s.node);
    if (size === undefined) {
      size = llseek(s, 0, SEEK_END);
      sizes.set(s.node, size);
    }
    // A position before the start is the original's error to raise.
    return offset + size < 0 ? llseek(s, offset, whence) : offset + size;
  };

  stream.write = (s, buffer, offset, length, position) => {
    let written: number;
    try {
      written = write(s, buffer, offset, length, position);
    } catch (error) {
      sizes.delete(s.node);
      throw error;
    }
    const size = sizes.get(s.node);
    if (size !== undefined) {
      if (s.flags & O_APPEND) sizes.delete(s.node);
      else if (position + written > size) sizes.set(s.node, position + written);
    }
    return written;
  };

  stream.open = (s) => {
    sizes.delete(s.node);
    return open(s);
  };

  /** Runs a truncate of `node` and forgets its length either way: the next seek reads the new one. */
  const truncating = (node: FsNode, run: () => void) => {
    sizes.delete(node);
    try {
      run();
    } finally {
      sizes.delete(node);
    }
  };
  if (streamSetattr) {
    stream.setattr = (s, attr) => truncating(s.node, () => streamSetattr(s, attr));
  }
  nodefs.node_ops.setattr = (node, attr) => truncating(node, () => nodeSetattr(node, attr));

  const kept: KeptFileSizes = { sizeOf: (node) => sizes.get(node) };
  Object.defineProperty(nodefs, WRAPPED, { value: kept });
  return kept;
}
