import { JOSE_CONTENT_TYPE, SERVICE_HEADER } from '../../protocol';
import { createAuth } from '../auth/create-auth';
import { ignoreResponse, type UserAuth } from '../auth/user-auth';
import type { AuthPlan } from '../config/plan';
import type { EncodedBody } from '../target/encryptor';
import { jsonOf } from './http-client';
import type { HttpResponse, PreparedRequest } from './http-message';
import { TIMING_REQUEST_HEADER } from './server-timing';
import type { Pause, RequestSpec, Runtime } from './types';

const SERVICE_HEADER_LOWER = SERVICE_HEADER.toLowerCase();

/** Stands for a request without headers of its own, as a key of {@link VirtualUser}'s request cache. */
const NO_HEADERS: Record<string, string> = {};

/** A body-less request with fixed credentials, prepared once (see VirtualUser.attempt). */
interface FixedRequest {
  method: string;
  url: string;
  auth: Record<string, string>;
  service: string | undefined;
  prepared: PreparedRequest;
}

/** Answers to a JWE meaning the keys or policy changed since they were fetched (as the SDK's HTTP client). */
const STALE_POLICY_CODES = new Set(['unknown_key', 'unknown_kid', 'encryption_disabled']);

function staleKeys(res: HttpResponse): boolean {
  if (res.status !== 400 && res.status !== 415) return false;
  const code = (jsonOf(res) as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' && STALE_POLICY_CODES.has(code);
}

/** Without a run to end it (a user made for discovery, cleanup or on its own): a plain timer. */
const plainPause: Pause = (ms) => new Promise((resolve) => setTimeout(() => resolve(true), ms));

/**
 * One simulated user: its own credentials per auth provider (a session user has its own cookie jar and
 * CSRF token), logging in lazily, re-authenticating and retrying once after a 401. Its `pause` is the
 * think time within an iteration; executors give it one that the end of their run cuts short.
 */
export class VirtualUser {
  private readonly auths = new Map<AuthPlan, { auth: UserAuth; ready: boolean }>();
  /** Body-less requests with fixed credentials, prepared, by the request's own headers object. */
  private readonly fixed = new WeakMap<Record<string, string>, FixedRequest>();

  constructor(
    readonly id: number,
    private readonly rt: Runtime,
    readonly pause: Pause = plainPause,
  ) {}

  /** Logs in to every auth provider the plan's scenarios use, so the first requests are not slowed by it. */
  async prepare(): Promise<void> {
    const plans = new Set(this.rt.plan.scenarios.map((s) => s.auth));
    for (const plan of plans) await this.ready(plan);
  }

  /**
   * Sends a request with the credentials of `plan`. A 401 with a session or custom auth logs in again and
   * retries once; a JWE refused as made with a retired key (a rotation during the run) refreshes the keys,
   * re-encrypts and retries once, as the Desk's HTTP client does.
   */
  send(plan: AuthPlan, req: RequestSpec): Promise<HttpResponse> {
    // The common case costs no async step of its own: logged in, no body to encode, nothing to retry on.
    const entry = this.auths.get(plan);
    if (entry?.ready && req.json === undefined && !entry.auth.relogin) {
      try {
        return this.attempt(entry.auth, req);
      } catch (err) {
        // As from an async function: a bad URL or header is a rejection, never a throw.
        return Promise.reject(err);
      }
    }
    return this.sendWithRetries(plan, req);
  }

  private async sendWithRetries(plan: AuthPlan, req: RequestSpec): Promise<HttpResponse> {
    const entry = this.auths.get(plan);
    const auth = entry?.ready ? entry.auth : await this.ready(plan);
    let encoded = req.json === undefined ? undefined : await this.encode(req);
    let res = await this.attempt(auth, req, encoded);
    if (encoded?.contentType === JOSE_CONTENT_TYPE && this.rt.encoder.refresh && staleKeys(res)) {
      await this.rt.encoder.refresh();
      encoded = await this.encode(req);
      res = await this.attempt(auth, req, encoded);
    }
    if (res.status !== 401 || !auth.relogin) return res;
    await auth.login();
    return this.attempt(auth, req, encoded);
  }

  private encode(req: RequestSpec) {
    return this.rt.encoder.encode(req.json, req.url, req.method, req.schema);
  }

  private attempt(auth: UserAuth, req: RequestSpec, encoded?: EncodedBody): Promise<HttpResponse> {
    // Fixed credentials watch no response: no extra step per request for them. Their headers are the
    // same object every time, so a body-less request to the same URL with the same scenario headers
    // object (a scenario's fixed headers are one object) is prepared once: the HTTP client resolves and
    // encodes it once and then writes the same bytes.
    if (auth.observe === ignoreResponse && !encoded) {
      const own = req.headers ?? NO_HEADERS;
      const authHeaders = auth.headers(req.method);
      let entry = this.fixed.get(own);
      if (
        !entry ||
        entry.url !== req.url ||
        entry.auth !== authHeaders ||
        entry.method !== req.method ||
        entry.service !== req.service
      ) {
        entry = {
          method: req.method,
          url: req.url,
          auth: authHeaders,
          service: req.service,
          prepared: this.rt.http.prepare({
            method: req.method,
            url: req.url,
            headers: this.headersOf(authHeaders, req),
          }),
        };
        this.fixed.set(own, entry);
      }
      return entry.prepared.send();
    }
    const headers = this.headersOf(auth.headers(req.method), req, encoded);
    const sent = this.rt.http.request({ method: req.method, url: req.url, headers, body: encoded?.body });
    if (auth.observe === ignoreResponse) return sent;
    return sent.then((res) => {
      auth.observe(res);
      return res;
    });
  }

  /**
   * What a request carries: `accept`, the credentials, the body's type, the service, the request for
   * `Server-Timing` (`server_timing: true`), its own headers.
   */
  private headersOf(
    authHeaders: Record<string, string>,
    req: RequestSpec,
    encoded?: EncodedBody,
  ): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', ...authHeaders };
    if (encoded) headers['content-type'] = encoded.contentType;
    if (req.service) headers[SERVICE_HEADER_LOWER] = req.service;
    if (this.rt.plan.serverTiming) headers[TIMING_REQUEST_HEADER] = '1';
    if (req.headers) Object.assign(headers, req.headers);
    return headers;
  }

  private async ready(plan: AuthPlan): Promise<UserAuth> {
    let entry = this.auths.get(plan);
    if (!entry) {
      const auth = createAuth(plan, {
        http: this.rt.http,
        encoder: this.rt.encoder,
        targetUrl: this.rt.plan.targetUrl,
        user: this.id,
      });
      entry = { auth, ready: false };
      this.auths.set(plan, entry);
    }
    if (!entry.ready) {
      await entry.auth.login();
      entry.ready = true;
    }
    return entry.auth;
  }
}
