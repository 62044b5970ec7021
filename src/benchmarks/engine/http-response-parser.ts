import type { HttpResponse } from './http-message';

/** A transport failure, with a stable code like undici's and Node's (`ECONNREFUSED`, ...). */
export class RawHttpError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const CRLF2 = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);
/** Heads are searched for in a latin1 string when the bytes read are at most this long (one decode). */
const SMALL_READ = 4096;

/** A decimal digit's value at `i` of `s`, or -1. */
function digit(s: string, i: number): number {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : -1;
}
/** The header lines that frame a body, as searched for in the lower-cased head. */
const CONNECTION = '\r\nconnection:';
const TRANSFER_ENCODING = '\r\ntransfer-encoding:';
const CONTENT_LENGTH = '\r\ncontent-length:';

/** The values of every `needle` header line of a lower-cased head, joined with `, ` (undefined: none). */
function framing(lower: string, needle: string): string | undefined {
  let at = lower.indexOf(needle);
  if (at < 0) return undefined;
  let out: string | undefined;
  while (at >= 0) {
    const from = at + needle.length;
    const end = lower.indexOf('\r\n', from);
    const value = lower.slice(from, end < 0 ? undefined : end).trim();
    out = out === undefined ? value : `${out}, ${value}`;
    at = end < 0 ? -1 : lower.indexOf(needle, end);
  }
  return out;
}

/** How a response's body is delimited. */
type BodyMode = 'none' | 'length' | 'chunked' | 'close';

/** A response head already read, and the framing read from it (a HEAD request's aside). */
interface KnownHead {
  text: string;
  status: number;
  keepAlive: boolean;
  bodyMode: BodyMode;
  length: number;
}

/** The last final head this thread parsed. */
let lastHead: KnownHead = { text: '', status: 0, keepAlive: false, bodyMode: 'none', length: 0 };

/**
 * A parsed response. The header lines are split into `headers` on first access only: framing the body
 * needs three of them, and most responses of a load test are never asked for any other.
 */
class ParsedResponse implements HttpResponse {
  private parsed: Record<string, string | string[]> | undefined;

  constructor(
    readonly status: number,
    readonly text: string,
    private readonly head: string,
    readonly receivedMs: number,
  ) {}

  get headers(): Record<string, string | string[]> {
    this.parsed ??= parseHeaderLines(this.head);
    return this.parsed;
  }
}

/** Header names lower-cased; repeated headers joined with `, `, except `set-cookie`, kept as a list. */
function parseHeaderLines(head: string): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  let end = head.indexOf('\r\n');
  while (end >= 0) {
    const start = end + 2;
    end = head.indexOf('\r\n', start);
    const line = end < 0 ? head.slice(start) : head.slice(start, end);
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const prev = headers[name];
    if (prev === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
    else if (Array.isArray(prev)) prev.push(value);
    else headers[name] = `${prev}, ${value}`;
  }
  return headers;
}

/** Reads the status and the framing of a response head (`HTTP/1.<0|1> <3 digits>` first). */
function readHead(text: string): KnownHead {
  const minor = digit(text, 7);
  const a = digit(text, 9);
  const b = digit(text, 10);
  const c = digit(text, 11);
  if (!text.startsWith('HTTP/1.') || minor > 1 || text.charCodeAt(8) !== 32 || a < 0 || b < 0 || c < 0)
    throw new RawHttpError('UND_ERR_INVALID_RESPONSE', 'not an HTTP/1.x response');
  const status = a * 100 + b * 10 + c;
  // Only the headers that frame the body are read here (see ParsedResponse).
  const lower = text.toLowerCase();
  const connection = framing(lower, CONNECTION) ?? '';
  const keepAlive = minor === 1 ? connection !== 'close' : connection === 'keep-alive';
  const te = framing(lower, TRANSFER_ENCODING) ?? '';
  const cl = framing(lower, CONTENT_LENGTH);
  if (status === 204 || status === 304) return { text, status, keepAlive, bodyMode: 'none', length: 0 };
  if (te.includes('chunked')) return { text, status, keepAlive, bodyMode: 'chunked', length: 0 };
  if (cl !== undefined) return { text, status, keepAlive, bodyMode: 'length', length: Number(cl) };
  return { text, status, keepAlive, bodyMode: 'close', length: 0 };
}

/**
 * Parses one HTTP/1.1 response from the chunks of a connection: `push` returns the response once it is
 * complete, `end` one that was delimited by the connection closing.
 */
export class ResponseParser {
  private buf: Buffer = EMPTY;
  /** Whether `buf` is a copy of its own rather than (a view of) a chunk as the caller passed it. */
  private bufOwned = true;
  private status = 0;
  private headText = '';
  private bodyMode: BodyMode | undefined;
  private length = 0;
  private readonly chunks: Buffer[] = [];
  /** How many of `chunks` are copies of their own (the others may be views of a reused read buffer). */
  private owned = 0;
  keepAlive = true;

  constructor(private head: boolean) {}

  /** Ready for the next response on the same connection (`head`: it answers a HEAD request). */
  reset(head: boolean): void {
    this.head = head;
    this.buf = EMPTY;
    this.bufOwned = true;
    this.status = 0;
    this.headText = '';
    this.bodyMode = undefined;
    this.length = 0;
    this.chunks.length = 0;
    this.owned = 0;
    this.keepAlive = true;
  }

  /**
   * Reads the next bytes of the connection; returns the response once it is complete. `chunk` may be a
   * view of a buffer the caller reuses for its next read: what is kept for later (an incomplete
   * response's bytes) is copied, a response complete within this chunk is decoded without a copy.
   * `receivedMs` (performance.now()) is when the chunk was read: a response it completes ends there.
   */
  push(chunk: Buffer, receivedMs: number): HttpResponse | undefined {
    const res = this.parse(chunk, receivedMs);
    if (!res) this.keep();
    return res;
  }

  /** Copies what refers to the caller's buffer: bytes left to parse and body chunks not yet copied. */
  private keep(): void {
    if (!this.bufOwned && this.buf.length > 0) {
      this.buf = Buffer.from(this.buf);
      this.bufOwned = true;
    }
    for (; this.owned < this.chunks.length; this.owned++)
      this.chunks[this.owned] = Buffer.from(this.chunks[this.owned]!);
  }

  private parse(chunk: Buffer, receivedMs: number): HttpResponse | undefined {
    if (this.buf.length === 0) {
      this.buf = chunk;
      this.bufOwned = false;
    } else if (chunk.length > 0) {
      this.buf = Buffer.concat([this.buf, chunk]);
      this.bufOwned = true;
    }
    if (this.bodyMode === undefined) {
      // A small read is decoded once and searched as a string; a large one searched as bytes.
      let end: number;
      let head: string;
      if (this.buf.length <= SMALL_READ) {
        const text = this.buf.toString('latin1');
        end = text.indexOf('\r\n\r\n');
        if (end < 0) return undefined;
        head = text.slice(0, end);
      } else {
        end = this.buf.indexOf(CRLF2);
        if (end < 0) return undefined;
        head = this.buf.toString('latin1', 0, end);
      }
      this.parseHead(head);
      this.buf = this.buf.subarray(end + 4);
      // An interim response (100 Continue) is followed by the real one.
      if (this.status >= 100 && this.status < 200) {
        this.bodyMode = undefined;
        return this.buf.length > 0 ? this.parse(EMPTY, receivedMs) : undefined;
      }
    }
    return this.body(receivedMs);
  }

  /** The response delimited by the connection closing at `receivedMs` (performance.now()), if any. */
  end(receivedMs: number): HttpResponse | undefined {
    if (this.bodyMode !== 'close') return undefined;
    this.chunks.push(this.buf);
    return this.done(receivedMs);
  }

  private parseHead(text: string): void {
    // A target answers a load test with the same head over and over (its Date changes once a second):
    // one string comparison reuses the framing read from the previous head of this thread.
    let known = lastHead;
    if (text !== known.text) {
      known = readHead(text);
      // An interim head (100 Continue) is not remembered: the final one follows at once.
      if (known.status >= 200) lastHead = known;
    }
    this.status = known.status;
    this.headText = text;
    this.length = known.length;
    // The answer to a HEAD request has no body, whatever its head says.
    this.bodyMode = this.head ? 'none' : known.bodyMode;
    this.keepAlive = known.keepAlive && (this.head || known.bodyMode !== 'close');
  }

  private body(receivedMs: number): HttpResponse | undefined {
    switch (this.bodyMode) {
      case 'none':
        return new ParsedResponse(this.status, '', this.headText, receivedMs);
      case 'length':
        if (this.buf.length < this.length) return undefined;
        return new ParsedResponse(
          this.status,
          this.buf.toString('utf8', 0, this.length),
          this.headText,
          receivedMs,
        );
      case 'chunked':
        for (;;) {
          const lineEnd = this.buf.indexOf('\r\n');
          if (lineEnd < 0) return undefined;
          const size = Number.parseInt(this.buf.toString('latin1', 0, lineEnd), 16);
          if (Number.isNaN(size)) throw new RawHttpError('UND_ERR_INVALID_RESPONSE', 'bad chunk size');
          if (size === 0) {
            // The last chunk, then optional trailers and an empty line.
            const end = this.buf.indexOf(CRLF2, Math.max(0, lineEnd - 2));
            if (end < 0) return undefined;
            return this.done(receivedMs);
          }
          if (this.buf.length < lineEnd + 2 + size + 2) return undefined;
          this.chunks.push(this.buf.subarray(lineEnd + 2, lineEnd + 2 + size));
          this.buf = this.buf.subarray(lineEnd + 2 + size + 2);
        }
      default:
        return undefined;
    }
  }

  private done(receivedMs: number): HttpResponse {
    const text =
      this.chunks.length === 1
        ? this.chunks[0]!.toString('utf8')
        : Buffer.concat(this.chunks).toString('utf8');
    return new ParsedResponse(this.status, text, this.headText, receivedMs);
  }
}
