import type { Context } from 'hono';
import { type NodeRequest, nodeRequestOf } from './node-request';

/** A body read once, or being read, kept on its Request for every later reader. */
const KEPT = Symbol('keptBody');
/** The kept bytes, on Hono's body cache, for its `arrayBuffer` entry made on demand. */
const BYTES = Symbol('keptBytes');

type Keeping = Request & { [KEPT]?: Uint8Array | Promise<Uint8Array> };
type BodyCache = Record<string, Promise<unknown> | undefined> & { [BYTES]?: Uint8Array };

const EMPTY = new Uint8Array(0);

/** The body already read (or being read) by {@link readNodeBody} or kept by {@link keepBody}. */
export function keptBody(c: Context): Uint8Array | Promise<Uint8Array> | undefined {
  return (c.req.raw as Keeping)[KEPT];
}

/**
 * Hono's body cache for a kept body: its `arrayBuffer` entry is made when a reader asks (`c.req.text()`,
 * `c.req.arrayBuffer()` and the like convert from it), so a body nobody else reads is never copied into an
 * ArrayBuffer. The entry is an enumerable getter of the prototype (Hono looks for any entry with `for...in`),
 * replaced by the made promise on first use.
 */
class KeptBodyCache {
  [BYTES]: Uint8Array;
  constructor(bytes: Uint8Array) {
    this[BYTES] = bytes;
  }
}

function arrayBufferOnDemand(this: BodyCache): Promise<ArrayBuffer> {
  const bytes = this[BYTES] ?? EMPTY;
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  const value = Promise.resolve(copy.buffer);
  Object.defineProperty(this, 'arrayBuffer', { value, writable: true, enumerable: true, configurable: true });
  return value;
}

Object.defineProperty(KeptBodyCache.prototype, 'arrayBuffer', {
  get: arrayBufferOnDemand,
  enumerable: true,
  configurable: true,
});

/**
 * Keeps `bytes` as the request's body: later reads here and through `c.req` see them (Hono's body cache,
 * when nothing is in it yet, becomes a {@link KeptBodyCache}).
 */
export function keepBody(c: Context, bytes: Uint8Array): void {
  (c.req.raw as Keeping)[KEPT] = bytes;
  for (const _ in c.req.bodyCache) return;
  c.req.bodyCache = new KeptBodyCache(bytes) as unknown as typeof c.req.bodyCache;
}

/** True when nothing has read or started to read the body: no stream reader, no `c.req` body call. */
function untouched(c: Context, incoming: NodeRequest): boolean {
  if (incoming.readableFlowing !== null || incoming.readableDidRead || incoming.readableEncoding !== null) {
    return false;
  }
  for (const _ in c.req.bodyCache) return false;
  return true;
}

/** The settling of {@link ended}'s promise and the body it resolves to, on the node:http request. */
const SETTLE = Symbol('settleEnded');
const ENDED_BODY = Symbol('endedBody');
type Waiting = NodeRequest & { [SETTLE]?: (bytes: Uint8Array) => void; [ENDED_BODY]?: Uint8Array };

/** The `end` and `close` listener of {@link ended} (one function for every request: none made per request). */
function settle(this: Waiting): void {
  this.off('end', settle);
  this.off('close', settle);
  const resolve = this[SETTLE];
  const bytes = this[ENDED_BODY] ?? EMPTY;
  this[SETTLE] = undefined;
  this[ENDED_BODY] = undefined;
  resolve?.(bytes);
}

/**
 * Resolves with `bytes` once the request has ended (node:http reports the end of the message after its body),
 * so the answer goes out for a request received whole, as the adapter's own read does, and the server has
 * nothing left to drain. A request whose connection closes first resolves too: its body is complete.
 */
function resolveWhenEnded(incoming: Waiting, bytes: Uint8Array, resolve: (bytes: Uint8Array) => void): void {
  if (incoming.readableEnded) {
    resolve(bytes);
    return;
  }
  incoming[SETTLE] = resolve;
  incoming[ENDED_BODY] = bytes;
  incoming.on('end', settle);
  incoming.on('close', settle);
  incoming.resume();
}

/**
 * The body of a request with a declared `Content-Length` of `length` bytes, read from the node:http request
 * without the adapter's copy into an ArrayBuffer; undefined where that cannot be done (no node:http request,
 * or something already reads the body), for the caller to read through `c.req`.
 *
 * The server calls the app as soon as the header block is parsed; the body bytes received with it (a small
 * body usually comes in the same packet) are parsed before the next microtask. So one microtask later the
 * whole body is usually buffered, to take as one Buffer, and the promise settles when the message ends.
 * When the body is not all there yet (still arriving, `Expect: 100-continue`), the adapter's
 * `c.req.arrayBuffer()` reads it, with its handling of a client that goes away. The bytes are kept
 * ({@link keepBody}).
 */
export function readNodeBody(c: Context, length: number): Promise<Uint8Array> | undefined {
  const incoming = nodeRequestOf(c);
  if (incoming === undefined || !untouched(c, incoming)) return undefined;
  // One promise, settled from a microtask (not a `then` chain, whose returned promise would cost more ticks).
  const pending = new Promise<Uint8Array>((resolve, reject) => {
    queueMicrotask(() => {
      try {
        // A request already destroyed (its `close` may have passed) is left to the adapter's read.
        if (incoming.readableLength >= length && !incoming.destroyed && untouched(c, incoming)) {
          const bytes = incoming.read() ?? EMPTY;
          keepBody(c, bytes);
          resolveWhenEnded(incoming, bytes, resolve);
          return;
        }
        c.req.arrayBuffer().then((buffer) => {
          const bytes = new Uint8Array(buffer);
          (c.req.raw as Keeping)[KEPT] = bytes;
          resolve(bytes);
        }, reject);
      } catch (err) {
        reject(err);
      }
    });
  });
  (c.req.raw as Keeping)[KEPT] = pending;
  return pending;
}
