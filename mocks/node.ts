/**
 * The mock backend for Node (tests): `msw/node`'s `setupServer` handing every `/api/` request to the
 * platform's own API app over in-memory stores (./support/create-mock-backend.ts).
 *
 * @example
 * const mock = await createMockServer({ mode: 'metadata', baseUrl: 'http://desk.test' });
 * mock.server.listen({ onUnhandledRequest: 'error' });
 * afterAll(() => mock.server.close());
 */
import { type SetupServer, setupServer } from 'msw/node';
import { apiHandlers } from './handlers/api';
import {
  createMockBackend,
  MOCK_USER,
  type MockBackend,
  type MockBackendOptions,
} from './support/create-mock-backend';

/** A mock backend: the MSW server and the backend it hands requests to. */
export interface MockServer {
  server: SetupServer;
  env: MockBackend;
}

/** Options of {@link createMockServer}. */
export interface MockServerOptions extends MockBackendOptions {
  /**
   * Requests that present no credential act as the mock's administrator (through a bearer token), for
   * tests of code that assumes a signed-in caller; default false (the server's behaviour: 401).
   */
  signedIn?: boolean;
}

/** Lifetime of the token of a signed-in mock server: longer than any test. */
const TOKEN_TTL_MS = 24 * 3_600_000;

/**
 * Builds (without starting) a Node mock backend; call `server.listen()` to intercept. Its record store starts
 * empty (tests count what they store); pass `records: 'seeded'` for the offline Desk's sample records.
 */
export async function createMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const { signedIn = false, ...backendOptions } = options;
  const backend = await createMockBackend({ records: 'empty', ...backendOptions });
  let token: Promise<string> | undefined;
  const fallbackAuthorization = signedIn
    ? async () => {
        token ??= backend.ctx.security.auth.issueToken(MOCK_USER.usr, TOKEN_TTL_MS);
        return `Bearer ${await token}`;
      }
    : undefined;
  return { server: setupServer(...apiHandlers(backend, { fallbackAuthorization })), env: backend };
}
