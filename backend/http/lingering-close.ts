import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** Longest time a connection is kept open, reading and discarding, after its last answer. */
export const LINGER_MS = 2_000;

type Lingering = Socket & { destroySoon(): void };

/**
 * Closes a connection gracefully when its last answer (`Connection: close`, e.g. a 413 sent before a huge body
 * was read) leaves the request body still arriving. node:http would destroy the socket as soon as the answer
 * is written; the client, still sending, then gets a reset, and a reset makes the client's kernel drop the
 * answer it had not read yet, so the client sees `write EPIPE` or `ECONNRESET` instead of the 413. Here the
 * server half-closes instead (the answer and a FIN go out), keeps discarding what still arrives, and destroys
 * the socket once the client closes its side or after {@link LINGER_MS}, whichever comes first (the
 * "lingering close" of HTTP servers; RFC 9112 section 9.6). Installed per request with a body, on its socket.
 */
export function lingerOnClose(incoming: IncomingMessage): void {
  const socket = incoming.socket as Lingering;
  const destroySoon = Object.getPrototypeOf(socket).destroySoon as (this: Socket) => void;
  socket.destroySoon = function lingeringDestroySoon(this: Lingering): void {
    if (incoming.complete || this.destroyed || !this.readable) {
      destroySoon.call(this);
      return;
    }
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    this.once('end', () => this.destroy());
    this.end();
  };
}
