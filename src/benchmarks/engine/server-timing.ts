// The target's `Server-Timing` answer header (W3C Server Timing; header syntax of RFC 9110 section 5.6):
// a comma-separated list of metrics, `name;dur=1.2;desc="Database"`, each with optional parameters. The
// harness asks for it (`server_timing: true`) and sums each metric's `dur` per series.

/** The request header that asks the target for `Server-Timing` (docs/performance.md). */
export const TIMING_REQUEST_HEADER = 'x-platform-timing';

/** One metric of a `Server-Timing` header: its name and `dur` in ms. */
export interface ServerTimingEntry {
  name: string;
  durMs: number;
}

/** Time spent in one server stage over many responses: the sum of its durations and how many there were. */
export interface StageTime {
  sumMs: number;
  count: number;
}

/** Stage name -> accumulated time. */
export type StageTimes = Record<string, StageTime>;

/** Whether `c` is a `tchar` of RFC 9110 section 5.6.2 (the characters of a token). */
function isTokenChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || // 0-9
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x61 && c <= 0x7a) || // a-z
    c === 0x21 || // !
    (c >= 0x23 && c <= 0x27) || // # $ % & '
    c === 0x2a || // *
    c === 0x2b || // +
    c === 0x2d || // -
    c === 0x2e || // .
    c === 0x5e || // ^
    c === 0x5f || // _
    c === 0x60 || // `
    c === 0x7c || // |
    c === 0x7e // ~
  );
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09)) i++;
  return i;
}

function tokenEnd(s: string, i: number): number {
  while (i < s.length && isTokenChar(s.charCodeAt(i))) i++;
  return i;
}

/** The index after the quoted-string starting at `i` (a `"`), escapes skipped. */
function quotedEnd(s: string, i: number): number {
  for (i++; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) i++;
  }
  return i;
}

/** The text of the quoted-string from `start` (its `"`) to `end` (after its closing `"`), unescaped. */
function unquote(s: string, start: number, end: number): string {
  const inner = s.slice(start + 1, s.charCodeAt(end - 1) === 0x22 && end - 1 > start ? end - 1 : end);
  return inner.includes('\\') ? inner.replace(/\\(.)/g, '$1') : inner;
}

/** Whether the parameter name from `i` to `end` is `dur`, in any case. */
function isDur(s: string, i: number, end: number): boolean {
  return (
    end - i === 3 &&
    (s.charCodeAt(i) | 0x20) === 0x64 &&
    (s.charCodeAt(i + 1) | 0x20) === 0x75 &&
    (s.charCodeAt(i + 2) | 0x20) === 0x72
  );
}

/** The index of the comma ending the current list member (or the end), skipping quoted strings. */
function memberEnd(s: string, i: number): number {
  while (i < s.length) {
    const c = s[i];
    if (c === ',') return i;
    if (c === '"') i = quotedEnd(s, i);
    else i++;
  }
  return i;
}

/**
 * Parses a `Server-Timing` value into its metrics that carry a duration: `name;dur=1.5;desc="..."`.
 * Parameter names are case-insensitive, values are tokens or quoted strings (`\` escapes), the first `dur`
 * of a metric wins and other parameters are ignored, as the W3C processing model says. A metric without
 * a numeric `dur` says nothing about time and is left out; a malformed member is skipped up to the next
 * comma outside quotes, so the metrics after it are still read.
 */
export function parseServerTiming(value: string): ServerTimingEntry[] {
  const out: ServerTimingEntry[] = [];
  let i = 0;
  while (i < value.length) {
    i = skipSpace(value, i);
    const nameEnd = tokenEnd(value, i);
    const name = value.slice(i, nameEnd);
    i = nameEnd;
    let dur: number | undefined;
    for (;;) {
      i = skipSpace(value, i);
      if (value[i] !== ';') break;
      i = skipSpace(value, i + 1);
      const paramEnd = tokenEnd(value, i);
      // Only the first `dur` is read; other values are skipped without being copied.
      const wanted = dur === undefined && isDur(value, i, paramEnd);
      i = skipSpace(value, paramEnd);
      let paramValue = '';
      if (value[i] === '=') {
        i = skipSpace(value, i + 1);
        const start = i;
        i = value[i] === '"' ? quotedEnd(value, i) : tokenEnd(value, i);
        if (wanted) paramValue = value[start] === '"' ? unquote(value, start, i) : value.slice(start, i);
      }
      if (wanted) {
        const n = paramValue === '' ? Number.NaN : Number(paramValue);
        dur = Number.isFinite(n) ? n : Number.NaN;
      }
    }
    const end = memberEnd(value, i);
    // Anything but spaces between the metric and its comma makes the member malformed.
    const clean = skipSpace(value, i) === end;
    if (clean && name !== '' && dur !== undefined && !Number.isNaN(dur)) out.push({ name, durMs: dur });
    i = end + 1;
  }
  return out;
}

/**
 * Adds the metrics of a response's `Server-Timing` header (a string, or several header lines) to `into`;
 * nothing when the response has none.
 */
export function addServerTiming(into: StageTimes, header: string | string[] | undefined): void {
  if (header === undefined) return;
  for (const line of typeof header === 'string' ? [header] : header) {
    for (const { name, durMs } of parseServerTiming(line)) {
      const t = into[name];
      if (t) {
        t.sumMs += durMs;
        t.count++;
      } else into[name] = { sumMs: durMs, count: 1 };
    }
  }
}

/**
 * Adds the accumulated stage times `from` to `into` (threads, workers, seconds merged), a new record when
 * `into` is undefined; returns `into`.
 */
export function mergeStageTimes(into: StageTimes | undefined, from: StageTimes): StageTimes {
  into ??= {};
  for (const [name, t] of Object.entries(from)) {
    const have = into[name];
    if (have) {
      have.sumMs += t.sumMs;
      have.count += t.count;
    } else into[name] = { sumMs: t.sumMs, count: t.count };
  }
  return into;
}
