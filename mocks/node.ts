/**
 * The mock backend for Node (tests): `msw/node`'s `setupServer` over the handler groups, with the key ring
 * made of the backend's real key store and JWE decryption.
 *
 * @example
 * const mock = await createMockServer({ mode: 'metadata', baseUrl: 'http://desk.test' });
 * mock.server.listen({ onUnhandledRequest: 'error' });
 * afterAll(() => mock.server.close());
 */
import { type SetupServer, setupServer } from 'msw/node';
import { dataHandlers } from './handlers/data';
import { gatewayHandlers } from './handlers/gateway';
import { securityHandlers } from './handlers/security';
import {
  createMockEnvironment,
  type MockEnvironment,
  type MockEnvironmentOptions,
} from './support/environment';
import { createNodeKeyRing } from './support/node-key-ring';

/** A mock backend: the MSW server and the state its handlers share. */
export interface MockServer {
  server: SetupServer;
  env: MockEnvironment;
}

/**
 * Builds (without starting) a Node mock backend; call `server.listen()` to intercept. Its record store starts
 * empty (tests count what they store); pass `records: 'seeded'` for the offline Desk's sample records.
 */
export async function createMockServer(
  options: Omit<MockEnvironmentOptions, 'keyRing'> = {},
): Promise<MockServer> {
  const env = createMockEnvironment({ records: 'empty', ...options, keyRing: await createNodeKeyRing() });
  const server = setupServer(...gatewayHandlers(env), ...securityHandlers(env), ...dataHandlers(env));
  return { server, env };
}
