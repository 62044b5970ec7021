/**
 * Shared setup of the SDK tests: a Node mock backend (the MSW handler groups over the real backend modules)
 * on the origin `http://desk.test`, and a log of the requests it saw.
 */
import { createMockServer, type MockServer } from '../../mocks/node';
import type { MockEnvironmentOptions } from '../../mocks/support/environment';

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
}

/** Creates and starts a mock backend; the caller closes `server` in `afterAll`. */
export async function startBackend(
  options: Omit<MockEnvironmentOptions, 'keyRing'> = {},
): Promise<TestBackend> {
  const mock = await createMockServer({ baseUrl: ORIGIN, ...options });
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
