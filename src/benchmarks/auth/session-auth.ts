import { CSRF_HEADER, isSafeMethod, parseRetryAfter } from '../../protocol';
import type { HttpClient } from '../engine/http-client';
import { jsonOf } from '../engine/http-client';
import { harnessError } from '../errors';
import type { PayloadEncoder } from '../target/encryptor';
import { CookieJar } from './cookie-jar';
import type { UserAuth } from './user-auth';

/** What a session login needs. */
export interface SessionOptions {
  http: HttpClient;
  encoder: PayloadEncoder;
  /** Absolute login URL. */
  loginUrl: string;
  username: string;
  password: string;
  /** How a pause before another sign-in is waited; default a timer (tests record the pauses instead). */
  wait?: (ms: number) => Promise<void>;
}

/** Sign-ins sent again after a 503 or 429 with `Retry-After`, before the login counts as failed. */
export const LOGIN_RETRIES = 5;
/** The longest pause taken on one `Retry-After`: a server asking for more is treated as having failed. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * The pause a `Retry-After` field asks for (RFC 9110, section 10.2.3: delay-seconds or an HTTP-date), in
 * ms; undefined when absent, malformed, or longer than {@link MAX_RETRY_AFTER_MS}.
 */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const ms = parseRetryAfter(Array.isArray(value) ? value[0] : value, now);
  return ms === undefined || ms > MAX_RETRY_AFTER_MS ? undefined : ms;
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `auth.mode: session` (docs/security.md#auth): `POST login_url` with JSON `{ usr, pwd }` (encoded like any
 * body, since `selective` mode encrypts the login route), keeps the session cookie in a per-user jar, and
 * sends the response's `csrf_token` back as `X-CSRF-Token` on unsafe requests. A 401 later means the
 * session expired: the caller logs in again and retries once. A sign-in answered 503 or 429 with
 * `Retry-After` is sent again after that pause, up to {@link LOGIN_RETRIES} times.
 */
export function sessionAuth(o: SessionOptions): UserAuth {
  const jar = new CookieJar();
  let csrf: string | undefined;
  return {
    relogin: true,
    async login() {
      jar.clear();
      csrf = undefined;
      const encoded = await o.encoder.encode({ usr: o.username, pwd: o.password }, o.loginUrl, 'POST');
      const send = () =>
        o.http.request({
          method: 'POST',
          url: o.loginUrl,
          headers: { 'content-type': encoded.contentType, accept: 'application/json' },
          body: encoded.body,
        });
      let res = await send();
      // A server shedding sign-ins (503, or 429 from throttling) says when to come back: the user waits
      // that long and signs in again, as a browser user would, instead of failing at once or hammering.
      for (let retry = 0; retry < LOGIN_RETRIES && (res.status === 503 || res.status === 429); retry++) {
        const pause = retryAfterMs(res.headers['retry-after']);
        if (pause === undefined) break;
        await (o.wait ?? timer)(pause);
        res = await send();
      }
      if (res.status !== 200) {
        const code = (jsonOf(res) as { error?: { code?: string } } | undefined)?.error?.code;
        throw harnessError('login_failed', `login answered ${res.status}${code ? ` ${code}` : ''}`);
      }
      jar.store(res.headers['set-cookie']);
      const token = (jsonOf(res) as { csrf_token?: unknown } | undefined)?.csrf_token;
      csrf = typeof token === 'string' ? token : undefined;
    },
    headers(method) {
      const h: Record<string, string> = {};
      const cookie = jar.header();
      if (cookie) h.cookie = cookie;
      // Lower-case names, like every header this harness sends.
      if (csrf && !isSafeMethod(method)) h[CSRF_HEADER.toLowerCase()] = csrf;
      return h;
    },
    observe(res) {
      jar.store(res.headers['set-cookie']);
    },
  };
}
