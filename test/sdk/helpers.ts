/**
 * Shared setup of the SDK tests: a Node mock backend (the MSW handler groups over the real backend modules)
 * on the origin `http://desk.test`, and a log of the requests it saw.
 */
import { decryptRequestJwe } from '../../backend/security/jwe/decrypt-request-jwe';
import { parseDecryptedJson } from '../../backend/security/jwe/parse-decrypted-json';
import { createMockServer, type MockServer, type MockServerOptions } from '../../mocks/node';

/** Origin every SDK test talks to. */
export const ORIGIN = 'http://desk.test';

/** One intercepted request, with its body as text (read from a clone). */
export interface SeenRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

/** A mock backend plus the log of requests it received. */
export interface TestBackend extends MockServer {
  requests: SeenRequest[];
  /** Requests whose path is `path`. */
  to(path: string, method?: string): SeenRequest[];
  /** Waits until every logged request's body has been read. */
  settle(): Promise<void>;
  /**
   * Resolves once the backend has answered a request for `path`, counting from this call: call it before
   * the action that sends the request, await it after, so a view test waits for the answer, not for time.
   */
  answered(path: string): Promise<void>;
}

/**
 * Creates and starts a mock backend; the caller closes `server` in `afterAll`. Requests without a credential
 * act as the administrator unless `signedIn: false`.
 */
export async function startBackend(options: MockServerOptions = {}): Promise<TestBackend> {
  const mock = await createMockServer({ baseUrl: ORIGIN, signedIn: true, ...options });
  const requests: SeenRequest[] = [];
  const pending: Array<Promise<void>> = [];
  mock.server.events.on('request:start', ({ request }) => {
    const seen: SeenRequest = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body: '',
    };
    requests.push(seen);
    pending.push(
      request
        .clone()
        .text()
        .then((t) => {
          seen.body = t;
        }),
    );
  });
  mock.server.listen({ onUnhandledRequest: 'error' });
  return {
    ...mock,
    requests,
    to: (path, method) =>
      requests.filter((r) => r.url.pathname === path && (method === undefined || r.method === method)),
    settle: async () => {
      await Promise.all(pending);
    },
    answered: (path) =>
      new Promise((resolve) => {
        const listener = ({ request }: { request: Request }) => {
          if (new URL(request.url).pathname !== path) return;
          mock.server.events.removeListener('response:mocked', listener);
          resolve();
        };
        mock.server.events.on('response:mocked', listener);
      }),
  };
}

/** A `schedule` that holds flushes until the test runs them, for deterministic batching tests. */
export function manualScheduler(): { schedule: (flush: () => void) => void; flush: () => void } {
  let queued: Array<() => void> = [];
  return {
    schedule: (flush) => {
      queued.push(flush);
    },
    flush: () => {
      const run = queued;
      queued = [];
      for (const f of run) f();
    },
  };
}

/** The record `name` of `doctype` as the mock backend stores it, or undefined. */
export async function storedRecord(
  backend: TestBackend,
  doctype: string,
  name: string,
): Promise<Record<string, unknown> | undefined> {
  return backend.env.store.get(backend.env.doctypes.get(doctype)!, name);
}

/** Decrypts a JWE made for `method` + `path` with the mock backend's keys, as its middleware would. */
export async function decryptWithBackendKeys(
  backend: TestBackend,
  token: string,
  method: string,
  path: string,
): Promise<unknown> {
  const { plaintext } = await decryptRequestJwe(token, { method, paths: [path] }, backend.env.keys);
  return parseDecryptedJson(plaintext);
}

/** An `Authorization` header of a fresh bearer token of the mock's administrator, for raw `fetch` calls. */
export async function adminAuthorization(backend: TestBackend): Promise<{ authorization: string }> {
  const token = await backend.env.ctx.security.auth.issueToken('Administrator', 3_600_000);
  return { authorization: `Bearer ${token}` };
}
