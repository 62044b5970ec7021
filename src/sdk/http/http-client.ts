/**
 * `fetchWithCredentials` (docs/sdk.md#payload-encryption-and-http): the SDK's one way to call the platform.
 * - `credentials: 'include'` (the session cookie), JSON in and out by default;
 * - `X-CSRF-Token` on unsafe methods once a login stored a token;
 * - `X-Platform-Service: <owner>` when the caller knows the owner
 *   (docs/architecture.md#deterministic-routing);
 * - the body goes through `encryptPayload` once the security policy is loaded (or a flagged schema is given);
 *   a 415 to a plaintext body loads the policy and retries once, a 400 `unknown_key` refreshes the keys and
 *   retries once;
 * - every non-2xx answer is one {@link HttpError}.
 */
import {
  CSRF_HEADER,
  type FlaggedSchema,
  hasFlaggedFields,
  isSafeMethod,
  JSON_CONTENT_TYPE,
  LOGIN_PATH,
  LOGOUT_PATH,
  SERVICE_HEADER,
} from '../../protocol';
import { isAbortError, SdkError } from '../errors';
import type { SecurityClient } from '../security/security-client';
import { type CsrfTokenStore, createCsrfTokenStore } from './csrf';
import { httpErrorFrom } from './http-error';

/** Options of one request. */
export interface RequestOptions extends Omit<RequestInit, 'body' | 'method' | 'headers'> {
  /** HTTP method; default `GET`. */
  method?: string;
  /**
   * The body: a JSON value (a string is taken as JSON text already serialized). `FormData`, `Blob`,
   * `URLSearchParams` and buffers pass through untouched, but only where no encryption is required.
   */
  body?: unknown;
  headers?: Record<string, string>;
  /** Owner service of the target; sent as `X-Platform-Service`. */
  service?: string;
  /** Query parameters appended to the url (`undefined` values are left out). */
  query?: Record<string, string | number | boolean | undefined>;
}

/** Options of {@link createHttpClient}. */
export interface HttpClientOptions {
  /** Prefix for urls that start with `/`; default `''` (same origin). */
  baseUrl?: string;
  /** Fetch implementation; default the global `fetch`, looked up at call time. */
  fetch?: typeof globalThis.fetch;
  /** The security client whose policy decides encryption; omit to always send JSON. */
  security?: SecurityClient;
  /** CSRF token store; default a new one over `sessionStorage`. */
  csrf?: CsrfTokenStore;
}

/** The login answer (docs/security.md#auth: `{ "message": "Logged In", "csrf_token": "..." }`). */
export interface LoginResponse {
  message: string;
  csrf_token?: string;
}

/** What {@link createHttpClient} returns. */
export interface HttpClient {
  /** `fetchWithCredentials(url, options?, schema?)`: resolves to the parsed JSON (undefined when empty). */
  fetch<T = unknown>(url: string, options?: RequestOptions, schema?: FlaggedSchema): Promise<T>;
  /** `POST /api/method/login` with `{ usr, pwd }`; stores the answer's CSRF token. */
  login(usr: string, pwd: string, options?: { url?: string; signal?: AbortSignal }): Promise<LoginResponse>;
  /** `POST /api/method/logout`; forgets the CSRF token whatever the answer. */
  logout(options?: { url?: string }): Promise<void>;
  readonly csrf: CsrfTokenStore;
}

/** Answers to an encrypted body that mean the client's policy or keys are stale (rotation, mode change). */
const STALE_POLICY_CODES = new Set(['unknown_key', 'unknown_kid', 'encryption_disabled']);

function isRawBody(body: unknown): boolean {
  return (
    (typeof FormData !== 'undefined' && body instanceof FormData) ||
    (typeof Blob !== 'undefined' && body instanceof Blob) ||
    body instanceof URLSearchParams ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream)
  );
}

function withQuery(url: string, query: RequestOptions['query']): string {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined) params.append(key, String(value));
  const qs = params.toString();
  if (qs === '') return url;
  return `${url}${url.includes('?') ? '&' : '?'}${qs}`;
}

async function parseBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new SdkError('invalid_response', 'The server answered malformed JSON.', {
      status: response.status,
      cause,
    });
  }
}

/**
 * Creates an HTTP client over injected fetch, security client and CSRF store.
 *
 * @example
 * const http = createHttpClient({ baseUrl: 'http://127.0.0.1:8000', security: new SecurityClient() });
 * await http.login('Administrator', 'admin');
 * const { data } = await http.fetch('/api/resource/crm.Customer', { method: 'POST', body, service: 'crm' }, schema);
 */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const csrf = options.csrf ?? createCsrfTokenStore();
  const baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const security = options.security;

  const absolute = (url: string) => (url.startsWith('/') && !url.startsWith('//') ? `${baseUrl}${url}` : url);

  /** Body and content type for one attempt; `encrypted` says whether the policy was applied. */
  async function prepareBody(
    url: string,
    method: string,
    body: unknown,
    schema: FlaggedSchema | undefined,
    forcePolicy: boolean,
    service: string | undefined,
  ): Promise<{ body?: BodyInit; contentType?: string; policyApplied: boolean }> {
    if (body === undefined) return { policyApplied: false };
    const usePolicy =
      security !== undefined &&
      (forcePolicy || security.isLoaded || security.isLoading || hasFlaggedFields(schema));
    if (isRawBody(body)) {
      if (usePolicy) {
        // Only JSON can be encrypted: refuse rather than send plaintext where the rule says encrypt.
        if (await security.requiresEncryption(url, method, schema)) {
          throw new SdkError(
            'encryption_failed',
            'Only JSON bodies can be encrypted; this route requires it.',
          );
        }
      }
      return { body: body as BodyInit, policyApplied: usePolicy };
    }
    if (!usePolicy) {
      return {
        body: typeof body === 'string' ? body : JSON.stringify(body),
        contentType: JSON_CONTENT_TYPE,
        policyApplied: false,
      };
    }
    // Encrypted to the owner's own key when it publishes one (docs/security.md#encrypted-to-the-owning-service).
    const payload = await security.encryptPayload(body, url, method, schema, service);
    return { body: payload.body, contentType: payload.contentType, policyApplied: true };
  }

  async function request<T>(url: string, init: RequestOptions = {}, schema?: FlaggedSchema): Promise<T> {
    const { method: rawMethod, body, headers, service, query, ...rest } = init;
    const method = (rawMethod ?? 'GET').toUpperCase();
    const target = withQuery(absolute(url), query);
    let forcePolicy = false;
    let refreshedKeys = false;
    for (;;) {
      const prepared = await prepareBody(target, method, body, schema, forcePolicy, service);
      const sendHeaders = new Headers(headers);
      if (!sendHeaders.has('Accept')) sendHeaders.set('Accept', 'application/json');
      if (prepared.contentType) sendHeaders.set('Content-Type', prepared.contentType);
      const token = csrf.get();
      if (token && !isSafeMethod(method)) sendHeaders.set(CSRF_HEADER, token);
      if (service) sendHeaders.set(SERVICE_HEADER, service);
      let response: Response;
      try {
        response = await doFetch(target, {
          ...rest,
          method,
          headers: sendHeaders,
          body: prepared.body,
          credentials: 'include',
        });
      } catch (err) {
        if (isAbortError(err) || rest.signal?.aborted) throw err;
        throw new SdkError(
          'network_error',
          `The request to ${method} ${url.split('?')[0]} could not be sent.`,
          {
            cause: err,
          },
        );
      }
      if (response.ok) return (await parseBody(response)) as T;
      const error = await httpErrorFrom(response);
      // docs/security.md#key-rotation-without-failures: a retired key gets `unknown_key` (a changed mode
      // `encryption_disabled`); refetch the config and the JWKS and retry once.
      if (security && prepared.policyApplied && !refreshedKeys && STALE_POLICY_CODES.has(error.code)) {
        refreshedKeys = true;
        await security.refreshKeys();
        continue;
      }
      // docs/security.md#the-server-enforces-the-mode: the server refused plaintext; learn the policy and
      // retry once if it says encrypt.
      if (security && !prepared.policyApplied && !forcePolicy && body !== undefined && error.status === 415) {
        forcePolicy = true;
        const required = await security.requiresEncryption(target, method, schema).catch(() => false);
        if (required) continue;
      }
      throw error;
    }
  }

  return {
    fetch: request,
    csrf,
    async login(usr, pwd, loginOptions = {}) {
      const answer = await request<LoginResponse>(loginOptions.url ?? LOGIN_PATH, {
        method: 'POST',
        body: { usr, pwd },
        signal: loginOptions.signal,
      });
      if (answer && typeof answer.csrf_token === 'string') csrf.set(answer.csrf_token);
      return answer;
    },
    async logout(logoutOptions = {}) {
      try {
        await request(logoutOptions.url ?? LOGOUT_PATH, { method: 'POST', body: {} });
      } finally {
        csrf.clear();
      }
    },
  };
}
