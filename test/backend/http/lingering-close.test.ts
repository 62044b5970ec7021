/**
 * A 413 sent before a huge body was read reaches a client that is still sending and not reading yet
 * (docs/security.md#request-limits): the server half-closes and discards the rest instead of resetting the
 * connection, whose reset would make the client's kernel drop the unread answer (`write EPIPE`).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../../backend/server';
import { apiKeyAuthorization } from '../../helpers/auth';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let server: RunningServer;
let authorization: string;
beforeAll(async () => {
  t = await createTestApp();
  authorization = await apiKeyAuthorization(t.ctx);
  server = await startServer(t.app, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

/**
 * Sends a request declaring `size` bytes and writes all of them without reading (the socket paused, as a
 * busy client's would be), then reads what the server answered. Resolves with the text read and the error
 * writing met, if any.
 */
function sendThenRead(size: number): Promise<{ answer: string; writeError?: string }> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    socket.pause();
    let answer = '';
    let writeError: string | undefined;
    socket.on('error', (err: NodeJS.ErrnoException) => {
      writeError ??= err.code ?? err.message;
    });
    socket.on('close', () => resolve({ answer, writeError }));
    socket.on('connect', async () => {
      socket.write(
        `POST /api/resource/crm.Lead HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(64 << 10, 0x78);
      for (let sent = 0; sent < size && !socket.destroyed; sent += chunk.length) {
        if (!socket.write(chunk)) {
          await new Promise<void>((done) => {
            socket.once('drain', done);
            socket.once('close', done);
          });
        }
      }
      // Only now does the client look at what came back.
      socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
      socket.resume();
    });
  });
}

describe('lingering close after an early answer', () => {
  it('delivers the 413 to a client that sends its whole 8 MB body before reading', async () => {
    for (let i = 0; i < 3; i++) {
      const { answer, writeError } = await sendThenRead(8 << 20);
      expect(writeError).toBeUndefined();
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toContain('"payload_too_large"');
    }
  });
});
