import type { Socket } from 'node:net';
import type { ErrorCode } from '../../src/protocol';
import { errorBody } from './errors';

function jsonError(status: number, code: ErrorCode, message: string): Response {
  return new Response(JSON.stringify(errorBody(code, message)), {
    status,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      Connection: 'close',
    },
  });
}

/**
 * The answer to a request the HTTP adapter could not turn into a `Request` (a backslash or a raw non-ASCII
 * byte in the path, an invalid `Host`): 400 `invalid_url` in the one JSON error shape, instead of the adapter's
 * empty 400. Anything else that escapes the app is the generic 500.
 */
export function adapterErrorResponse(err: unknown): Response {
  if (err instanceof Error && err.name === 'RequestError') {
    return jsonError(400, 'invalid_url', 'The request target or Host header is not a valid URL.');
  }
  return jsonError(500, 'internal_error', 'The server could not complete the request.');
}

const CLIENT_ERRORS: Record<string, [number, ErrorCode, string]> = {
  // The parser refuses a raw non-ASCII or control byte in the target before the adapter sees it: the same
  // 400 `invalid_url` as a target the adapter cannot parse (docs/http-api.md#errors).
  HPE_INVALID_URL: [400, 'invalid_url', 'The request target is not a valid URL.'],
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'The request headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request took too long to arrive.'],
};

/**
 * node:http `clientError` listener: a request line or header the HTTP parser refuses (invalid bytes in the
 * target, a malformed header) is answered with the one JSON error shape, then the connection is closed.
 */
export function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (err.code === 'ECONNRESET' && socket.destroyed)) {
    socket.destroy();
    return;
  }
  const fallback: [number, ErrorCode, string] = [
    400,
    'bad_request',
    'The request could not be parsed as HTTP.',
  ];
  const [status, code, message] = CLIENT_ERRORS[err.code ?? ''] ?? fallback;
  const body = JSON.stringify(errorBody(code, message));
  const reason =
    status === 400 ? 'Bad Request' : status === 431 ? 'Request Header Fields Too Large' : 'Request Timeout';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
