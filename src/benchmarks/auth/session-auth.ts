import { CSRF_HEADER, isSafeMethod } from '../../protocol';
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
}

/**
 * `auth.mode: session` (docs/security.md#auth): `POST login_url` with JSON `{ usr, pwd }` (encoded like any
 * body, since `selective` mode encrypts the login route), keeps the session cookie in a per-user jar, and
 * sends the response's `csrf_token` back as `X-CSRF-Token` on unsafe requests. A 401 later means the
 * session expired: the caller logs in again and retries once.
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
      const res = await o.http.request({
        method: 'POST',
        url: o.loginUrl,
        headers: { 'content-type': encoded.contentType, accept: 'application/json' },
        body: encoded.body,
      });
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
