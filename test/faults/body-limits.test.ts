import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryKb, type ServeProcess, signIn, startServe, streamUpload } from './helpers/serve-process';

// 12 concurrent uploads of 400 MB each would need 4.8 GB if any of them were buffered; the server must stay
// within this many megabytes above its own peak before the flood.
const RSS_GROWTH_BOUND_MB = 256;
const PARALLEL = 12;

const temp = mkdtempSync(join(tmpdir(), 'fault-limits-'));
let server: ServeProcess;
beforeAll(async () => {
  server = await startServe(join(temp, 'data'));
});
afterAll(async () => {
  await server?.stop();
  rmSync(temp, { recursive: true, force: true });
});

const errorCode = (body: string | undefined) =>
  (JSON.parse(body ?? '{}') as { error?: { code?: string } }).error?.code;

describe('request body limits on a real m serve', () => {
  it('refuses 12 parallel 400 MB sign-in bodies with 413 while RSS stays bounded and another user is served', async () => {
    const session = await signIn(server.url);
    const created = await fetch(`${server.url}/api/resource/crm.Lead`, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body: JSON.stringify({ lead_name: 'Served during the flood', source: 'Website' }),
    });
    expect(created.status).toBe(201);
    const pid = server.child.pid!;
    const peakBefore = Math.max(memoryKb(pid, 'VmHWM'), memoryKb(pid, 'VmRSS'));

    const declared = Array.from({ length: PARALLEL }, () =>
      streamUpload(`${server.url}/api/method/login`, 400 << 20, { declareLength: true }),
    );
    const chunked = Array.from({ length: PARALLEL }, () =>
      streamUpload(`${server.url}/api/method/login`, 64 << 20, { declareLength: false }),
    );
    const withCredential = Array.from({ length: 4 }, () =>
      streamUpload(`${server.url}/api/resource/crm.Lead`, 64 << 20, {
        declareLength: false,
        headers: { cookie: session.cookie, 'x-csrf-token': session['x-csrf-token'], origin: server.url },
      }),
    );
    // Another user reads while the flood is under way.
    const read = fetch(`${server.url}/api/resource/crm.Lead?limit=5`, {
      headers: { cookie: session.cookie },
    });
    const results = await Promise.all([...declared, ...chunked, ...withCredential]);
    const reader = await read;
    expect(reader.status).toBe(200);
    expect(JSON.stringify(await reader.json())).toContain('Served during the flood');

    const answered = results.filter((r) => r.status !== undefined);
    expect(answered.length).toBeGreaterThan(0);
    for (const r of answered) {
      expect(r.status).toBe(413);
      expect(errorCode(r.body)).toBe('payload_too_large');
    }
    // Nothing close to a whole body was taken in.
    for (const r of results.slice(0, PARALLEL)) expect(r.sentBytes).toBeLessThan(400 << 20);
    const growthMb = (memoryKb(pid, 'VmHWM') - peakBefore) / 1024;
    expect(growthMb).toBeLessThan(RSS_GROWTH_BOUND_MB);

    // Still serving afterwards.
    const after = await fetch(`${server.url}/api/resource/crm.Lead?limit=1`, {
      headers: { cookie: session.cookie },
    });
    expect(after.status).toBe(200);
  });

  it('applies the small limit to requests without a credential and the larger one with a credential', async () => {
    const session = await signIn(server.url);
    const anonymous = await fetch(`${server.url}/api/method/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ usr: 'x'.repeat(70_000), pwd: 'y' }),
    });
    expect(anonymous.status).toBe(413);
    expect((await anonymous.json()).error.code).toBe('payload_too_large');

    // Valid JSON of 70 kB (whitespace): above the anonymous limit, well below the signed-in one.
    const body = `${JSON.stringify({ lead_name: 'Padded', source: 'Website' })}${' '.repeat(70_000)}`;
    const signedIn = await fetch(`${server.url}/api/resource/crm.Lead`, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body,
    });
    expect(signedIn.status).toBe(201);

    const huge = await fetch(`${server.url}/api/resource/crm.Lead`, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body: JSON.stringify({ lead_name: 'x'.repeat(2 << 20) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.headers.get('connection')).toBe('close');
  });

  it('limits the body on every route, known or not, before any handler parses it', async () => {
    const session = await signIn(server.url);
    const routes: [string, string][] = [
      ['POST', '/api/method/login'],
      ['POST', '/api/resource/crm.Lead'],
      ['PUT', '/api/resource/crm.Lead/LEAD-0001'],
      ['POST', '/api/gateway/discovery/query'],
      ['POST', '/api/method/platform.auth.change_password'],
      ['POST', '/api/no/such/route'],
      ['POST', '/desk/'],
    ];
    for (const [method, path] of routes) {
      for (const [headers, size] of [
        [{ origin: server.url }, 70_000],
        [session, 2 << 20],
      ] as const) {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { ...headers, 'content-type': 'application/json' },
          body: `{"x":"${'x'.repeat(size)}"}`,
        });
        expect(res.status, `${method} ${path} ${size}`).toBe(413);
        expect((await res.json()).error.code).toBe('payload_too_large');
      }
    }
  });
});
