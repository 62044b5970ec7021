import { connect, type Socket } from 'node:net';
import type { HttpRequest, HttpResponse } from './http-client';
import { RawHttpError, ResponseParser } from './http-response-parser';

/** A header name: an HTTP token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The exchange a connection is busy with. Each socket has one set of listeners for its whole life,
 * dispatching to its current exchange: adding and removing listeners per request costs more than the
 * parsing.
 */
const current = new WeakMap<
  Socket,
  { onData(chunk: Buffer): void; onError(err: Error): void; onClose(): void }
>();

/** One response being read from a connection. */
interface Exchange {
  head: boolean;
  resolve(res: HttpResponse): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
  /** Bytes of the response received so far (a stale keep-alive connection fails before any). */
  received: boolean;
}

/**
 * A keep-alive HTTP/1.1 client for one plain-http origin, written directly on `node:net`: a request is
 * one socket write, a response is parsed by hand (status line, headers, then a Content-Length, chunked
 * or until-close body). At the rates a load generator sends, a general-purpose client spends most of
 * the generator's CPU on its own machinery; this one does the least a load test needs. Up to
 * `connections` sockets; requests beyond wait in order for one to be free.
 */
export class RawHttpPool {
  private readonly idle: Socket[] = [];
  private readonly queue: Array<() => void> = [];
  private open = 0;
  private closed = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly connections: number,
    private readonly timeoutMs: number,
  ) {}

  /** Sends a request (path with query, headers as given, `host` included) and reads the whole response. */
  request(path: string, req: HttpRequest, headers: Record<string, string>): Promise<HttpResponse> {
    let head = `${req.method} ${path} HTTP/1.1\r\n`;
    for (const k in headers) {
      const v = String(headers[k]);
      // A rendered value (a data file's row, a captured value) must not smuggle in a header or request.
      if (/[\r\n]/.test(v) || !HEADER_NAME.test(k) || /[\s]/.test(path)) {
        return Promise.reject(
          new RawHttpError('invalid_request', `header ${k} or the path has a line break or space`),
        );
      }
      // The length is the body's own.
      if (k.toLowerCase() !== 'content-length') head += `${k}: ${v}\r\n`;
    }
    const body = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
    if (body) head += `content-length: ${body.length}\r\n`;
    else if (req.method !== 'GET' && req.method !== 'HEAD') head += 'content-length: 0\r\n';
    head += '\r\n';
    const bytes = body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
    return this.withSocket((socket, reused) =>
      this.exchange(socket, bytes, req.method === 'HEAD').catch(
        (err: RawHttpError & { received?: boolean }) => {
          // A kept-alive connection the server closed meanwhile fails before any byte: once more, afresh.
          if (reused && !err.received && !this.closed)
            return this.withSocket((s) => this.exchange(s, bytes, req.method === 'HEAD'), true);
          throw err;
        },
      ),
    );
  }

  /** Closes every idle connection; busy ones close when their response is read. */
  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.idle.splice(0)) s.destroy();
  }

  private async withSocket<T>(use: (s: Socket, reused: boolean) => Promise<T>, fresh = false): Promise<T> {
    let socket = fresh ? undefined : this.idle.pop();
    while (socket?.destroyed) {
      this.open--;
      socket = this.idle.pop();
    }
    const reused = socket !== undefined;
    if (!socket) {
      if (this.open >= this.connections) {
        await new Promise<void>((resolve) => this.queue.push(resolve));
        return this.withSocket(use, fresh);
      }
      this.open++;
      try {
        socket = await this.connect();
      } catch (err) {
        this.release(undefined);
        throw err;
      }
    }
    return use(socket, reused);
  }

  private connect(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const s = connect(this.port, this.host);
      s.setNoDelay(true);
      // Errors are handled by the exchange in progress; an idle connection that fails or closes leaves
      // the pool (without a listener, an idle socket's error would end the process).
      s.on('error', (err) => current.get(s)?.onError(err));
      s.on('close', () => {
        const ex = current.get(s);
        if (ex) ex.onClose();
        else this.dropIdle(s);
      });
      s.on('data', (chunk: Buffer) => current.get(s)?.onData(chunk));
      const timer = setTimeout(() => {
        s.destroy();
        reject(new RawHttpError('UND_ERR_CONNECT_TIMEOUT', 'connect timeout'));
      }, this.timeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        resolve(s);
      });
      s.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  private dropIdle(s: Socket): void {
    const i = this.idle.indexOf(s);
    if (i < 0) return;
    this.idle.splice(i, 1);
    this.open--;
    this.queue.shift()?.();
  }

  /** A socket is done with: back to idle (or closed), and a waiting request may go. */
  private release(socket: Socket | undefined, keep = false): void {
    if (socket && keep && !this.closed && !socket.destroyed) {
      this.idle.push(socket);
    } else {
      if (socket) socket.destroy();
      this.open--;
    }
    this.queue.shift()?.();
  }

  private exchange(socket: Socket, bytes: Buffer, head: boolean): Promise<HttpResponse> {
    return new Promise<HttpResponse>((resolve, reject) => {
      const ex: Exchange = {
        head,
        resolve,
        reject,
        received: false,
        timer: setTimeout(
          () => fail(new RawHttpError('UND_ERR_HEADERS_TIMEOUT', 'response timeout')),
          this.timeoutMs,
        ),
      };
      const parser = new ResponseParser(ex.head);
      const cleanup = () => {
        clearTimeout(ex.timer);
        current.delete(socket);
      };
      const fail = (err: Error) => {
        cleanup();
        (err as Error & { received?: boolean }).received = ex.received;
        this.release(socket);
        reject(err);
      };
      const onData = (chunk: Buffer) => {
        ex.received = true;
        let res: HttpResponse | undefined;
        try {
          res = parser.push(chunk);
        } catch (err) {
          fail(err as Error);
          return;
        }
        if (!res) return;
        cleanup();
        this.release(socket, parser.keepAlive);
        resolve(res);
      };
      const onError = (err: Error) => fail(err);
      const onClose = () => {
        const res = parser.end();
        if (res) {
          cleanup();
          this.release(socket);
          resolve(res);
        } else fail(new RawHttpError('ECONNRESET', 'the connection closed before the response ended'));
      };
      current.set(socket, { onData, onError, onClose });
      socket.write(bytes);
    });
  }
}
