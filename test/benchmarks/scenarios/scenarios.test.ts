import { afterEach, describe, expect, it, vi } from 'vitest';
import { weightedPicker } from '../../../src/benchmarks/engine/executor';
import { HttpClient } from '../../../src/benchmarks/engine/http-client';
import { Recorder } from '../../../src/benchmarks/engine/recorder';
import { VirtualUser } from '../../../src/benchmarks/engine/virtual-user';
import { runLoadTest } from '../../../src/benchmarks/run';
import { type FakePlatform, startFakePlatform } from '../helpers/fake-platform';
import { planFrom, runtimeFor, tempDir } from '../helpers/runtime';

let server: FakePlatform | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of closers.splice(0)) await c();
  await server?.close();
  server = undefined;
});

async function setup(targets: string, files: Record<string, string> = {}) {
  server = await startFakePlatform();
  const plan = planFrom(
    `target_url: ${server.url}\nauth: { mode: none }\nseed: { tenant: acme, region: eu }\ntargets:\n${targets}`,
    {},
    files,
  );
  const r = await runtimeFor(plan);
  closers.push(r.close);
  return { ...r, plan, user: new VirtualUser(0, r.rt) };
}

const resourceRequests = () => server!.received.filter((r) => r.path.startsWith('/api/resource/'));
const methodPaths = () =>
  server!.received.filter((r) => r.path.startsWith('/api/method/')).map((r) => r.path);

describe('doctype scenario', () => {
  it('generates create payloads from the DocType metadata found through discovery, with overrides on top', async () => {
    const { runners, user } = await setup(`  - type: doctype
    name: crm.Customer
    mix: { create: 1 }
    payload_overrides: { status: Inactive, customer_name: "{{ seed.tenant }} {{ faker.person.lastName }}" }
`);
    expect(server!.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/security/config',
      'POST /api/gateway/discovery/query',
      'GET /api/meta/crm',
    ]);
    expect(JSON.parse(server!.received[1]!.body)).toEqual({ resources: ['crm.Customer'], services: {} });
    await runners[0]!.iterate(user);
    const [create] = resourceRequests();
    expect(create).toMatchObject({ method: 'POST', path: '/api/resource/crm.Customer' });
    expect(create!.headers['x-platform-service']).toBe('crm');
    expect(create!.headers['content-type']).toBe('application/json');
    const body = JSON.parse(create!.body);
    expect(Object.keys(body).sort()).toEqual(['customer_name', 'email', 'phone', 'status']);
    expect(body.status).toBe('Inactive');
    expect(body.customer_name).toMatch(/^acme \S+/);
    expect(body.email).toMatch(/@/);
    expect(body.phone).toMatch(/^\+?[0-9][0-9 ()./-]{3,24}$/);
  });

  it('reuses created ids for reads, updates and deletes, and lists with filters when it knows none', async () => {
    const { runners, user } = await setup(`  - type: doctype
    name: crm.Lead
    mix: { read: 1 }
    filters: { source: Website }
  - type: doctype
    name: crm.Lead
    label: lead-writes
    mix: { create: 1 }
  - type: doctype
    name: crm.Lead
    label: lead-updates
    mix: { update: 1 }
  - type: doctype
    name: crm.Lead
    label: lead-deletes
    mix: { delete: 1 }
`);
    const [read, create, update, del] = runners;
    await read!.iterate(user);
    const list = resourceRequests()[0]!;
    expect(list.method).toBe('GET');
    expect(new URL(list.url, server!.url).searchParams.get('filters')).toBe('{"source":"Website"}');
    // Each runner keeps its own pool: an update with no known id creates first, then updates that id.
    await update!.iterate(user);
    await update!.iterate(user);
    await del!.iterate(user);
    await del!.iterate(user);
    const calls = resourceRequests()
      .slice(1)
      .map((r) => `${r.method} ${r.path}`);
    expect(calls).toEqual([
      'POST /api/resource/crm.Lead',
      'PUT /api/resource/crm.Lead/REC-1',
      'POST /api/resource/crm.Lead',
      'DELETE /api/resource/crm.Lead/REC-2',
    ]);
    // A Lead has only its title field, so the update regenerates that one.
    expect(Object.keys(JSON.parse(resourceRequests()[2]!.body))).toEqual(['lead_name']);
    await create!.iterate(user);
    expect(server!.records.has('REC-3')).toBe(true);
    expect(server!.records.has('REC-2')).toBe(false);
  });

  it('drops an id from the pool when the target answers 404 for it', async () => {
    const { runners, user } = await setup(`  - type: doctype
    name: crm.Lead
    mix: { update: 1 }
`);
    await runners[0]!.iterate(user); // pool empty: creates REC-1
    server!.records.delete('REC-1'); // gone behind the harness's back
    expect((await runners[0]!.iterate(user)).status).toBe(404);
    await runners[0]!.iterate(user); // pool empty again: creates instead of updating REC-1
    expect(resourceRequests().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/resource/crm.Lead',
      'PUT /api/resource/crm.Lead/REC-1',
      'POST /api/resource/crm.Lead',
    ]);
  });

  it('fails with target_mismatch for a DocType the target does not know', async () => {
    server = await startFakePlatform();
    const plan = planFrom(
      `target_url: ${server.url}\nauth: { mode: none }\ntargets: [{ type: doctype, name: hr.Employee }]\n`,
    );
    await expect(runtimeFor(plan)).rejects.toMatchObject({ code: 'target_mismatch' });
  });
});

describe('endpoint scenario', () => {
  it('sends the method to the rendered path with rendered headers and body', async () => {
    const { runners, user } = await setup(`  - type: endpoint
    name: search
    method: put
    path: /api/things/{{ seed.tenant }}?q={{ seed.region }}
    headers: { X-Tenant: "{{ seed.tenant }}", X-Request: "{{ faker.string.uuid }}" }
    body: { who: "{{ faker.person.fullName }}", n: 3 }
`);
    await runners[0]!.iterate(user);
    const r = server!.received.at(-1)!;
    expect(r).toMatchObject({ method: 'PUT', url: '/api/things/acme?q=eu' });
    expect(r.headers['x-tenant']).toBe('acme');
    expect(r.headers['x-request']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(r.body)).toEqual({ who: expect.any(String), n: 3 });
  });

  it('takes its body from body_factory, a module next to the config', async () => {
    const { runners, user } = await setup(
      `  - type: endpoint
    name: order
    method: POST
    path: /api/orders
    body_factory: factories.make_order
`,
      {
        'factories.ts':
          'export async function make_order(ctx: { user: number; seed: { tenant: string } }) { return { by: ctx.user, tenant: ctx.seed.tenant }; }\n',
      },
    );
    await runners[0]!.iterate(user);
    expect(JSON.parse(server!.received.at(-1)!.body)).toEqual({ by: 0, tenant: 'acme' });
  });
});

describe('flow think_seconds', () => {
  const flow = (think: string) => `  - type: flow
    name: visit
    steps:
      - { type: endpoint, name: open, method: GET, path: /api/method/open, think_seconds: ${think} }
      - { type: endpoint, name: next, method: GET, path: /api/method/next }
`;
  /** The flow's and its steps' latencies (us) and counts, from the recorder's snapshots. */
  const recorded = (r: Recorder) => {
    const [snap] = r.flush(true);
    r.close();
    return snap!.scenarios.map((s) => ({ count: s.count, maxUs: s.latency?.maxValue ?? 0 }));
  };

  it("pauses between steps for the step's think time, leaving the pause out of the flow's latency", async () => {
    const { rt, runners, plan } = await setup(flow('[1, 3]'));
    expect((plan.scenarios[0] as { steps: Array<{ think: number[] }> }).steps.map((s) => s.think)).toEqual([
      [1, 3],
      [0, 0],
    ]);
    // The clock of latencies moves only when the pause moves it: a pause counted in would be seconds.
    vi.useFakeTimers({ toFake: ['performance'] });
    const pauses: number[] = [];
    const user = new VirtualUser(0, rt, async (ms) => {
      pauses.push(ms);
      vi.advanceTimersByTime(ms);
      return true;
    });
    const recorder = new Recorder(plan.slots.length, 0, () => 0, true, false);
    await runners[0]!.timed!(user, recorder, performance.now());
    expect(methodPaths()).toEqual(['/api/method/open', '/api/method/next']);
    expect(pauses).toHaveLength(1);
    expect(pauses[0]).toBeGreaterThanOrEqual(1000);
    expect(pauses[0]).toBeLessThanOrEqual(3000);
    // Flow, then its two steps: each counted once, none holding the pause (1 us is the histogram's floor).
    expect(recorded(recorder)).toEqual([
      { count: 1, maxUs: 1 },
      { count: 1, maxUs: 1 },
      { count: 1, maxUs: 1 },
    ]);
  });

  it('ends the iteration when the end of the run cuts a pause: its steps recorded, the flow not', async () => {
    const { rt, runners, plan } = await setup(flow('2'));
    const user = new VirtualUser(0, rt, async () => false);
    const recorder = new Recorder(plan.slots.length, 0, () => 0, true, false);
    await runners[0]!.timed!(user, recorder, performance.now());
    expect(methodPaths()).toEqual(['/api/method/open']);
    expect(recorded(recorder).map((s) => s.count)).toEqual([0, 1, 0]);
  });

  it('lets a run end on time while its users pause: the pause is cut at the end of the duration', async () => {
    server = await startFakePlatform();
    const plan = planFrom(
      `target_url: ${server.url}\nauth: { mode: none }\nusers: { peak: 2 }\nduration_seconds: 1\nthresholds: { p95_ms: 600000 }\ntargets:\n${flow('600')}`,
    );
    // A pause of ten minutes per user: the run (and this test) would last that long if it were not cut.
    const { result } = await runLoadTest({ plan, outDir: tempDir(), live: { write: () => true } });
    const visit = result.scenarios[0]!;
    expect(visit.count).toBe(0);
    expect(visit.steps!.map((s) => s.count)).toEqual([2, 0]);
  });
});

describe('flow step thresholds', () => {
  const run = async (steps: string, duration = 1) => {
    server = await startFakePlatform();
    const plan = planFrom(
      `target_url: ${server.url}\nauth: { mode: none }\nusers: { peak: 2, think_time_seconds: 0.05 }\nduration_seconds: ${duration}\nthresholds: { p95_ms: 600000 }\ntargets:\n  - type: flow\n    name: visit\n    steps:\n${steps}`,
    );
    return (await runLoadTest({ plan, outDir: tempDir(), live: { write: () => true } })).result;
  };

  it("judges a step on its own limits only, scoped '<flow> > <step>'", async () => {
    const result =
      await run(`      - { type: endpoint, name: open, method: GET, path: /api/method/open, thresholds: { p95_ms: 0.001 } }
      - { type: endpoint, name: next, method: GET, path: /api/method/next, thresholds: { error_rate: 0.5 } }
`);
    const stepChecks = result.verdict.checks.filter((c) => c.scope.startsWith('visit > '));
    // No request answers within a microsecond; nothing failed; the run's p95 limit is not inherited.
    expect(stepChecks.map((c) => [c.scope, c.metric, c.passed])).toEqual([
      ['visit > open', 'p95_ms', false],
      ['visit > next', 'error_rate', true],
    ]);
    expect(result.verdict.status).toBe('thresholds_breached');
  });

  it("stops the run on a step's abort_on_fail breach, naming the step", async () => {
    const result = await run(
      `      - type: endpoint
        name: open
        method: GET
        path: /api/method/open
        expect: { status: 201 }
        thresholds: { error_rate: 0.01, abort_on_fail: true, abort_grace_seconds: 0 }
`,
      30,
    );
    expect(result.verdict.status).toBe('aborted');
    expect(result.verdict.aborted?.check).toMatchObject({ scope: 'visit > open', metric: 'error_rate' });
    expect(result.durationSeconds).toBeLessThan(30);
  });
});

describe('users.host', () => {
  it('sends the configured Host header on every request', async () => {
    server = await startFakePlatform();
    const plan = planFrom(
      `target_url: ${server.url}\nauth: { mode: none }\nusers: { host: desk.example }\ntargets: [{ type: endpoint, name: e, method: GET, path: /x }]\n`,
    );
    const http = new HttpClient({ connections: 1, timeoutMs: 5000, hostHeader: plan.hostHeader });
    closers.push(() => http.close());
    await http.request({ method: 'GET', url: `${server.url}/x`, headers: {} });
    expect(server.received.at(-1)!.headers.host).toBe('desk.example');
  });
});

describe('rpc scenario', () => {
  it('posts kwargs and args to <apiUrl>/method/<dotted> of the owning service', async () => {
    const { runners, user } = await setup(`  - type: rpc
    name: count
    method: crm.api.customer_count
    kwargs: { status: Active, tags: [a, "{{ seed.region }}"] }
    args: [1, "{{ seed.tenant }}"]
`);
    expect(JSON.parse(server!.received[1]!.body)).toEqual({ resources: [], services: { crm: 0 } });
    const res = await runners[0]!.iterate(user);
    expect(JSON.parse(res.text)).toEqual({ message: 42 });
    const r = server!.received.at(-1)!;
    expect(r).toMatchObject({ method: 'POST', path: '/api/method/crm.api.customer_count' });
    expect(r.headers['x-platform-service']).toBe('crm');
    expect(JSON.parse(r.body)).toEqual({ status: 'Active', tags: ['a', 'eu'], args: [1, 'acme'] });
  });
});

describe('weightedPicker', () => {
  it('chooses scenarios in proportion to their weight', async () => {
    const { runners } = await setup(`  - { type: rpc, name: a, method: crm.api.ping, weight: 1 }
  - { type: rpc, name: b, method: crm.api.ping, weight: 3 }
`);
    const pick = weightedPicker(runners);
    let b = 0;
    for (let i = 0; i < 4000; i++) if (pick().plan.label === 'b') b++;
    expect(b / 4000).toBeGreaterThan(0.7);
    expect(b / 4000).toBeLessThan(0.8);
  });
});
