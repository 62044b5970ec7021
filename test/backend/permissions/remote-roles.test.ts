/**
 * The roles a MACROSERVICE gateway's users API offers (backend/permissions/remote-permissions.ts): every
 * service's, asked over HTTP; a service that stops answering keeps offering what it last named.
 */
import { describe, expect, it } from 'vitest';
import { remoteRoleSource } from '../../../backend/permissions/remote-permissions';
import type { ServiceManifest } from '../../../src/protocol';

const manifest = (service: string) =>
  ({ service, apiUrl: `http://${service}.test/api` }) as unknown as ServiceManifest;
const admin = { user: 'Administrator', via: 'session', roles: ['System Manager'] } as const;

describe('remoteRoleSource', () => {
  it("offers a service's last roles while it does not answer, and its new ones once it does", async () => {
    const answers: Record<string, string[] | 'down'> = { crm: ['Sales User'], stock: ['Stock User'] };
    const asked: string[] = [];
    const roles = remoteRoleSource({
      directory: { list: () => [manifest('crm'), manifest('stock')] },
      secret: 'remote-roles-test-secret-0123456789',
      timeoutMs: 1_000,
      fetch: (async (url: URL) => {
        const service = url.hostname.split('.')[0]!;
        asked.push(`${service} ${url.pathname}`);
        const answer = answers[service];
        if (answer === 'down') throw new TypeError('fetch failed');
        return Response.json({ message: answer });
      }) as unknown as typeof fetch,
    });
    expect(await roles(admin)).toEqual(['Sales User', 'Stock User']);
    answers.stock = 'down';
    expect(await roles(admin)).toEqual(['Sales User', 'Stock User']);
    answers.stock = ['Stock Manager'];
    expect(await roles(admin)).toEqual(['Sales User', 'Stock Manager']);
    expect(asked).toContain('stock /api/permissions/roles');
    expect(asked).toHaveLength(6);
  });

  it('offers nothing of a service that has not answered since the gateway started', async () => {
    const roles = remoteRoleSource({
      directory: { list: () => [manifest('crm')] },
      secret: 'remote-roles-test-secret-0123456789',
      timeoutMs: 1_000,
      fetch: (async () => new Response('', { status: 503 })) as unknown as typeof fetch,
    });
    expect(await roles(admin)).toEqual([]);
  });
});
