import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from './errors';

/** Default of `server.body_idle_timeout_ms`: how long a request body may stop arriving before it is cut. */
export const DEFAULT_BODY_IDLE_TIMEOUT_MS = 30_000;

/** True when the request announces a body (a non-zero `Content-Length`, or `Transfer-Encoding`). */
function announcesBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return incoming.headers['transfer-encoding'] !== undefined;
}

/** The raw 408 in the one JSON error shape (docs/http-api.md#errors); the connection is closed after it. */
function requestTimeout(): string {
  const body = JSON.stringify(
    errorBody('request_timeout', 'The request body stopped arriving; send it again.'),
  );
  return (
    'HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n' +
    `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

function cut(socket: Socket, outgoing: ServerResponse): void {
  if (socket.destroyed) return;
  // An answer already on its way (a 413 sent while the body was still coming) cannot be followed by another.
  if (outgoing.headersSent) {
    socket.destroy();
    return;
  }
  socket.end(requestTimeout(), () => socket.destroy());
}

/**
 * Cuts a request whose body stops arriving (docs/security.md#slow-bodies): once no byte has come in on the
 * connection for `idleMs` while the body is incomplete, the client gets 408 `request_timeout` and the
 * connection is closed, so a client trickling nothing holds no connection or handler for long. Progress is
 * the connection's received byte count, checked by one timer per request with a body (re-armed from the last
 * progress, never per byte), so a slow but steady upload is not cut however long it takes in total. Node's own
 * `requestTimeout` bounds the total time of a request; this bounds its silence. Returns true when the request
 * has a body still to come (and so is watched).
 */
export function cutIdleBody(incoming: IncomingMessage, outgoing: ServerResponse, idleMs: number): boolean {
  if (!announcesBody(incoming) || incoming.complete) return false;
  const socket = incoming.socket;
  let seen = socket.bytesRead;
  let progressAt = Date.now();
  const check = (): void => {
    if (incoming.complete || socket.destroyed) return;
    const now = Date.now();
    if (socket.bytesRead !== seen) {
      seen = socket.bytesRead;
      progressAt = now;
    }
    const left = progressAt + idleMs - now;
    if (left <= 0) {
      cut(socket, outgoing);
      return;
    }
    // The next check comes when the silence since the last progress would reach the limit.
    timer = setTimeout(check, left);
    timer.unref();
  };
  let timer = setTimeout(check, idleMs);
  timer.unref();
  const stop = (): void => {
    clearTimeout(timer);
    incoming.off('end', stop);
    incoming.off('close', stop);
  };
  incoming.on('end', stop);
  incoming.on('close', stop);
  return true;
}
