import { connect, type Socket } from 'node:net';
import type { HttpResponse, PreparedRequest } from './http-message';
import { RawHttpError, ResponseParser } from './http-response-parser';

/** A header name: an HTTP token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Header names already checked against {@link HEADER_NAME} (a plan uses a handful, on every request). */
const validNames = new Set<string>();
/** Where every connection's bytes are read into (then copied out at once): no stream machinery per read. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * `performance.now()` of the first socket read of the event loop's current poll pass, -1 between passes
 * (see {@link arrivalStamp}).
 */
let passStamp = -1;
const endPass = (): void => {
  passStamp = -1;
};
/** Exchanges of this thread's plain-http pools waiting for their response (a read may be theirs). */
let inFlight = 0;

/**
 * When the bytes being read arrived: the time of the first read of this pass of the event loop's poll
 * phase. Every socket read in one pass was already readable when the poll returned, but each read's
 * callback runs after the previous ones and after the promise reactions they caused (a response recorded,
 * the next request written), so a stamp of its own would count the processing of the responses read
 * before it. The pass's first stamp is shared instead; it is cleared by an immediate, which runs once the
 * poll phase is over. A read while no other exchange is in flight has nothing to share its stamp with
 * (a request written after it, in this pass, was not readable when the poll returned): the stamp is its
 * own and nothing is scheduled, so an open model at a moderate rate, one exchange at a time, costs no
 * immediate per response.
 */
export function arrivalStamp(): number {
  if (passStamp >= 0) return passStamp;
  const now = performance.now();
  if (inFlight > 1) {
    passStamp = now;
    setImmediate(endPass);
  }
  return now;
}

/** A request ready to write, and who waits for its response. */
interface Pending {
  head: string | Buffer;
  body: Buffer | undefined;
  headOnly: boolean;
  resolve(res: HttpResponse): void;
  reject(err: Error): void;
  /** Sent again on a fresh connection after a kept-alive one failed before any byte of the answer. */
  retried: boolean;
}

/** One keep-alive connection and the exchange it is busy with. */
interface Connection {
  socket: Socket;
  pending: Pending | undefined;
  parser: ResponseParser;
  /** Sweeps that have found the pending exchange still waiting (see RawHttpPool.timeouts). */
  sweeps: number;
  /** Bytes of the current response received (a stale keep-alive connection fails before any). */
  received: boolean;
  reused: boolean;
}

/**
 * A keep-alive HTTP/1.1 client for one plain-http origin, written directly on `node:net`: a request is
 * one socket write, a response is read into one shared buffer (the socket's `onread`, bypassing the
 * stream machinery) and parsed by hand (status line, headers, then a Content-Length, chunked or
 * until-close body). Response timeouts are checked by one sweep timer per pool rather than a timer per
 * request. At the rates a load generator sends, a general-purpose client spends most of the generator's
 * CPU on its own machinery; this one does the least a load test needs. Up to `connections` sockets;
 * requests beyond wait in order for one to be free.
 */
export class RawHttpPool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly queue: Pending[] = [];
  private readonly readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  private sweep: NodeJS.Timeout | undefined;
  /** Period of the timeout sweep, and how many of its periods an exchange may wait (its timeout's). */
  private readonly sweepMs: number;
  private readonly sweepLimit: number;
  private open = 0;
  private closed = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly connections: number,
    private readonly timeoutMs: number,
  ) {
    this.sweepMs = Math.min(1000, Math.max(10, timeoutMs / 10));
    this.sweepLimit = Math.ceil(timeoutMs / this.sweepMs);
  }

  /**
   * Sends a request (path with query; `host` first, then the headers as given, a `host` among them
   * skipped) and reads the whole response.
   */
  request(
    method: string,
    path: string,
    host: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<HttpResponse> {
    const bytes = body === undefined ? undefined : Buffer.from(body, 'utf8');
    const head = buildHead(method, path, host, headers, bytes?.length);
    if (typeof head !== 'string') return Promise.reject(head);
    return this.send(head, bytes, method === 'HEAD');
  }

  /**
   * A body-less request to send again and again as it is: built and encoded once, each `send` writes the
   * same bytes (see HttpClient.prepare).
   */
  prepare(method: string, path: string, host: string, headers: Record<string, string>): PreparedRequest {
    const head = buildHead(method, path, host, headers, undefined);
    if (typeof head !== 'string') return { send: () => Promise.reject(head) };
    const bytes = Buffer.from(head, 'latin1');
    const headOnly = method === 'HEAD';
    return { send: () => this.send(bytes, undefined, headOnly) };
  }

  /** Closes every idle connection; busy ones close when their response is read. */
  async close(): Promise<void> {
    this.closed = true;
    for (const c of this.idle.splice(0)) c.socket.destroy();
    for (const p of this.queue.splice(0)) p.reject(new RawHttpError('UND_ERR_CLOSED', 'the client closed'));
  }

  /** One exchange: the request's head and body as they are written, resolved with its response. */
  private send(head: string | Buffer, body: Buffer | undefined, headOnly: boolean): Promise<HttpResponse> {
    if (this.closed) return Promise.reject(new RawHttpError('UND_ERR_CLOSED', 'the client closed'));
    return new Promise((resolve, reject) =>
      this.start({ head, body, headOnly, resolve, reject, retried: false }),
    );
  }

  /** Sends `p` on an idle connection, a new one, or queues it until one is free. */
  private start(p: Pending): void {
    // A retry goes on a fresh connection: the idle ones may be as stale as the one that failed.
    let c = p.retried ? undefined : this.idle.pop();
    while (c?.socket.destroyed) c = this.idle.pop();
    if (c) {
      this.begin(c, p, true);
      return;
    }
    if (this.open >= this.connections && p.retried) this.idle.shift()?.socket.destroy();
    if (this.open >= this.connections) {
      this.queue.push(p);
      return;
    }
    this.open++;
    this.connect().then(
      (conn) => this.begin(conn, p, false),
      (err: Error) => {
        this.open--;
        p.reject(err);
        this.next();
      },
    );
  }

  private begin(c: Connection, p: Pending, reused: boolean): void {
    c.pending = p;
    inFlight++;
    c.reused = reused;
    c.received = false;
    c.parser.reset(p.headOnly);
    c.sweeps = 0;
    // Unreferenced: a pending exchange's socket keeps the process alive, the sweep alone must not.
    this.sweep ??= setInterval(() => this.timeouts(), this.sweepMs).unref();
    if (p.body) {
      c.socket.cork();
      c.socket.write(p.head, 'latin1');
      c.socket.write(p.body);
      c.socket.uncork();
    } else if (typeof p.head === 'string') c.socket.write(p.head, 'latin1');
    else c.socket.write(p.head);
  }

  /** A waiting request may go. */
  private next(): void {
    const p = this.queue.shift();
    if (p) this.start(p);
  }

  /**
   * Fails every exchange waiting for longer than the timeout (a hung target): one found pending by more
   * sweeps than fit in the timeout has waited at least that long, and at most two sweep periods more.
   * Counting sweeps instead of stamping each exchange's start saves a clock read per request.
   */
  private timeouts(): void {
    let busy = 0;
    for (const c of this.all) {
      if (!c.pending) continue;
      if (++c.sweeps > this.sweepLimit)
        this.fail(c, new RawHttpError('UND_ERR_HEADERS_TIMEOUT', 'response timeout'));
      else busy++;
    }
    if (busy === 0 && this.queue.length === 0) {
      clearInterval(this.sweep);
      this.sweep = undefined;
    }
  }

  private connect(): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const c: Connection = {
        socket: undefined as unknown as Socket,
        pending: undefined,
        parser: new ResponseParser(false),
        sweeps: 0,
        received: false,
        reused: false,
      };
      const s = connect({
        port: this.port,
        host: this.host,
        noDelay: true,
        onread: {
          buffer: this.readBuffer,
          // The buffer is shared: the parser copies what it keeps beyond this read.
          callback: (n: number) => {
            const at = arrivalStamp();
            this.onData(c, this.readBuffer.subarray(0, n), at);
            return true;
          },
        },
      });
      c.socket = s;
      // Errors are handled by the exchange in progress; an idle connection that fails or closes leaves
      // the pool (without a listener, an idle socket's error would end the process).
      s.on('error', (err) => {
        if (c.pending) this.fail(c, err);
      });
      s.on('close', () => this.onClose(c));
      const timer = setTimeout(() => {
        s.destroy();
        reject(new RawHttpError('UND_ERR_CONNECT_TIMEOUT', 'connect timeout'));
      }, this.timeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        this.all.add(c);
        resolve(c);
      });
      s.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  /** Bytes of `c` read at `at` (performance.now()). */
  private onData(c: Connection, chunk: Buffer, at: number): void {
    if (!c.pending) {
      // Bytes nobody asked for: the connection is out of step.
      c.socket.destroy();
      return;
    }
    c.received = true;
    let res: HttpResponse | undefined;
    try {
      res = c.parser.push(chunk, at);
    } catch (err) {
      this.fail(c, err as Error);
      return;
    }
    if (res) this.finish(c, res, c.parser.keepAlive);
  }

  private onClose(c: Connection): void {
    if (this.all.delete(c)) this.open--;
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    if (c.pending) {
      const res = c.parser.end(performance.now());
      if (res) this.finish(c, res, false);
      else this.fail(c, new RawHttpError('ECONNRESET', 'the connection closed before the response ended'));
    }
    this.next();
  }

  /** A response is complete: the connection goes back to idle (or closes) and a waiting request may go. */
  private finish(c: Connection, res: HttpResponse, keepAlive: boolean): void {
    const p = c.pending!;
    c.pending = undefined;
    inFlight--;
    if (keepAlive && !this.closed && !c.socket.destroyed) {
      this.idle.push(c);
      this.next();
    } else c.socket.destroy();
    p.resolve(res);
  }

  /**
   * The exchange failed: the connection closes. A kept-alive connection the server closed meanwhile
   * fails before any byte: the request goes once more, on a fresh connection.
   */
  private fail(c: Connection, err: Error): void {
    const p = c.pending;
    if (!p) return;
    c.pending = undefined;
    inFlight--;
    c.socket.destroy();
    if (c.reused && !c.received && !p.retried && !this.closed) {
      p.retried = true;
      this.start(p);
      return;
    }
    (err as Error & { received?: boolean }).received = c.received;
    p.reject(err);
  }
}

/**
 * A request's head: the request line, `host` first, then the headers as given (a `host` or
 * `content-length` among them skipped), the body's length when there is one. A header value with a line
 * break, a header name that is not a token, or a path or host with a space or line break is refused.
 */
function buildHead(
  method: string,
  path: string,
  host: string,
  headers: Record<string, string>,
  bodyLength: number | undefined,
): string | RawHttpError {
  if (/\s/.test(path) || /[\r\n]/.test(host)) return invalid('the path or host');
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const k in headers) {
    const v = String(headers[k]);
    // A rendered value (a data file's row, a captured value) must not smuggle in a header or request.
    if (v.includes('\n') || v.includes('\r')) return invalid(`header ${k}`);
    if (!validNames.has(k)) {
      if (!HEADER_NAME.test(k)) return invalid(`header ${k}`);
      validNames.add(k);
    }
    const lower = k.toLowerCase();
    // The length is the body's own; the host was written first.
    if (lower !== 'content-length' && lower !== 'host') head += `${k}: ${v}\r\n`;
  }
  if (bodyLength !== undefined) head += `content-length: ${bodyLength}\r\n`;
  else if (method !== 'GET' && method !== 'HEAD') head += 'content-length: 0\r\n';
  return `${head}\r\n`;
}

function invalid(what: string): RawHttpError {
  return new RawHttpError('invalid_request', `${what} has a line break or space`);
}
