import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIssues } from '../../../src/benchmarks/config/issues';
import { loadPlan } from '../../../src/benchmarks/config/load-plan';
import { loadFaker } from '../../../src/benchmarks/template/faker-source';

// Some plans here name faker: it is loaded first, as loadPlanFile does for such a file.
beforeAll(() => loadFaker());

const dir = mkdtempSync(join(tmpdir(), 'load-plan-'));
const configPath = join(dir, 'load.yaml');
writeFileSync(join(dir, 'factories.ts'), 'export const makeOrder = () => ({ qty: 1 });\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { LOAD_PASSWORD: 'pw', LOAD_TOKEN: 'tok' };

function issuesOf(yaml: string, e: Record<string, string> = env) {
  const r = loadPlan(yaml, configPath, e);
  if (r.ok) throw new Error('expected issues');
  return r.issues;
}

function planOf(yaml: string, e: Record<string, string> = env) {
  const r = loadPlan(yaml, configPath, e);
  if (!r.ok) throw new Error(formatIssues('load.yaml', r.issues));
  return r.plan;
}

const MINIMAL = `target_url: http://127.0.0.1:8000
auth:
  mode: none
targets:
  - type: doctype
    name: crm.Customer
`;

describe('loadPlan defaults', () => {
  it('applies the defaults of docs/load-testing.md#reference-targets and the reference thresholds', () => {
    const plan = planOf(`${MINIMAL}  - type: endpoint
    name: health
    method: get
    path: /health
  - type: rpc
    name: count
    method: crm.api.customer_count
`);
    expect(plan.durationSeconds).toBe(300);
    expect(plan.scenarios.map((s) => s.weight)).toEqual([1, 1, 1]);
    const [doctype, endpoint, rpc] = plan.scenarios;
    expect(doctype?.type === 'doctype' && doctype.mix).toEqual({ read: 1, create: 0, update: 0, delete: 0 });
    expect(endpoint?.checks.status).toEqual([200]);
    expect(endpoint?.type === 'endpoint' && endpoint.method).toBe('GET');
    expect(rpc?.checks.status).toEqual([200]);
    expect(plan.thresholds).toEqual({ p95Ms: 200, errorRate: 0.01, p99Ms: undefined, minRps: undefined });
    expect(plan.model).toEqual({
      kind: 'closed',
      stages: [
        { durationSeconds: 0, target: 10 },
        { durationSeconds: 300, target: 10 },
      ],
    });
    expect(plan.users).toEqual({
      peak: 10,
      rampUpSeconds: 0,
      spawnRate: Number.POSITIVE_INFINITY,
      thinkTime: [0, 0],
    });
    expect(plan.generator).toEqual({
      workers: 1,
      maxEventLoopLagMs: 100,
      minAchievedRate: 0.95,
      batchMs: 20,
    });
    expect(plan.http).toEqual({ timeoutMs: 30_000, connections: 10 });
  });

  it('normalizes the mix ratios and lets spawn_rate win over ramp_up_seconds', () => {
    const plan = planOf(`${MINIMAL}    mix: { read: 6, create: 2, update: 1, delete: 1 }
users: { peak: 100, ramp_up_seconds: 50, spawn_rate: 10, think_time_seconds: [1, 3] }
`);
    const s = plan.scenarios[0]!;
    expect(s.type === 'doctype' && s.mix).toEqual({ read: 0.6, create: 0.2, update: 0.1, delete: 0.1 });
    expect(plan.users).toEqual({ peak: 100, rampUpSeconds: 10, spawnRate: 10, thinkTime: [1, 3] });
  });

  it('builds the open model from a per-minute rate and applies command-line overrides', () => {
    const r = loadPlan(`${MINIMAL}rate: { requests_per_minute: 600 }\n`, configPath, env, {
      durationSeconds: 60,
      users: 5,
      workers: 2,
    });
    expect(r.ok && r.plan.model).toMatchObject({ kind: 'open', ratePerSecond: 10 });
    expect(r.ok && [r.plan.durationSeconds, r.plan.users.peak, r.plan.generator.workers]).toEqual([60, 5, 2]);
  });

  it('scales users.stages to peak at --users, keeping their shape, and sets users.peak without stages', () => {
    const staged = `${MINIMAL}users:
  stages:
    - { duration_seconds: 30, target: 50 }
    - { duration_seconds: 60, target: 25 }
    - { duration_seconds: 30, target: 0 }
`;
    const r = loadPlan(staged, configPath, env, { users: 20 });
    if (!r.ok) throw new Error(formatIssues('load.yaml', r.issues));
    expect(r.plan.users.peak).toBe(20);
    expect(r.plan.model).toEqual({
      kind: 'closed',
      stages: [
        { durationSeconds: 30, target: 20 },
        { durationSeconds: 60, target: 10 },
        { durationSeconds: 30, target: 0 },
      ],
    });
    // The override travels with the plan's source, so generator threads compile the same stages.
    expect(r.plan.source.overrides.users).toBe(20);
    const flat = loadPlan(`${MINIMAL}users: { peak: 100 }\n`, configPath, env, { users: 7 });
    expect(flat.ok && flat.plan.users.peak).toBe(7);
  });

  it('substitutes environment variables and resolves factory module references next to the file', () => {
    const plan = planOf(`target_url: http://127.0.0.1:8000
auth: { mode: session, username: Administrator, password: "\${LOAD_PASSWORD}" }
targets:
  - type: endpoint
    name: order
    method: POST
    path: /api/orders
    body_factory: ./factories.ts#makeOrder
  - type: endpoint
    name: order2
    method: POST
    path: /api/orders
    body_factory: factories.makeOrder
    auth: { mode: bearer, token: "\${LOAD_TOKEN}" }
`);
    expect(plan.auth).toEqual({
      mode: 'session',
      loginUrl: '/api/method/login',
      username: 'Administrator',
      password: 'pw',
    });
    const [a, b] = plan.scenarios;
    expect(a?.type === 'endpoint' && a.bodyFactory).toMatchObject({
      file: join(dir, 'factories.ts'),
      exportName: 'makeOrder',
    });
    expect(b?.type === 'endpoint' && b.bodyFactory).toMatchObject({
      file: join(dir, 'factories.ts'),
      exportName: 'makeOrder',
    });
    expect(b?.auth).toEqual({ mode: 'bearer', token: 'tok' });
  });
});

describe('loadPlan validation', () => {
  it('reports a YAML syntax error with its line', () => {
    const issues = issuesOf('target_url: http://x\nauth: [unclosed\n');
    expect(issues[0]).toMatchObject({ code: 'yaml_syntax' });
    expect(issues[0]!.line).toBeGreaterThanOrEqual(2);
  });

  it('reports duplicate keys as syntax errors', () => {
    expect(issuesOf(`${MINIMAL}duration_seconds: 1\nduration_seconds: 2\n`)[0]).toMatchObject({
      code: 'yaml_syntax',
      line: 8,
    });
  });

  it('reports every problem of a file at once, each at its line and column', () => {
    const yaml = `target_url: ftp://example
auth:
  mode: session
  username: admin
  password: hunter2
users:
  peak: -5
  spawn_rat: 3
duration_seconds: "long"
targets:
  - type: doctype
    name: customer
    mix: { read: 0 }
  - type: endpoint
    name: x
    method: FETCH
    path: /p/{{ faker.person.nope }}
    expect_status: [999]
  - type: rpc
    name: x
    method: count
  - type: graphql
    name: g
`;
    const issues = issuesOf(yaml);
    const at = (code: string, path: string) => issues.find((i) => i.code === code && i.path === path);
    expect(at('invalid_value', 'target_url')).toMatchObject({ line: 1, column: 13 });
    expect(at('inline_secret', 'auth.password')).toMatchObject({ line: 5, column: 13 });
    expect(at('invalid_value', 'users.peak')).toMatchObject({ line: 7 });
    expect(at('unknown_key', 'users.spawn_rat')).toMatchObject({ line: 8, column: 3 });
    expect(at('invalid_type', 'duration_seconds')).toMatchObject({ line: 9 });
    expect(at('invalid_value', 'targets[0].name')).toMatchObject({ line: 12 });
    expect(at('invalid_value', 'targets[0].mix')).toMatchObject({ line: 13 });
    expect(at('invalid_value', 'targets[1].method')).toMatchObject({ line: 16 });
    expect(at('invalid_value', 'targets[1].expect_status[0]')).toMatchObject({ line: 18 });
    expect(at('invalid_value', 'targets[2].method')).toMatchObject({ line: 21 });
    expect(at('invalid_value', 'targets[3].type')).toMatchObject({ line: 22 });
    // Sorted top to bottom.
    expect(issues.map((i) => i.line)).toEqual([...issues.map((i) => i.line)].sort((a, b) => a - b));
    expect(issues.length).toBeGreaterThanOrEqual(11);
  });

  it('reports a missing required key at the object that lacks it', () => {
    const issues = issuesOf('target_url: http://x\nauth:\n  mode: bearer\n');
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'missing_key', path: 'targets' }),
        expect.objectContaining({ code: 'missing_key', path: 'auth.token', line: 3 }),
      ]),
    );
  });

  it('refuses inline secrets in every auth mode and in per-scenario overrides', () => {
    const issues = issuesOf(`target_url: http://x
auth: { mode: api_key, header_name: X-Api-Key, key: abc123 }
targets:
  - type: rpc
    name: r
    method: crm.api.ping
    auth: { mode: bearer, token: "Bearer abc" }
`);
    expect(issues.filter((i) => i.code === 'inline_secret').map((i) => [i.path, i.line])).toEqual([
      ['auth.key', 2],
      ['targets[0].auth.token', 7],
    ]);
  });

  it('accepts secrets framed around environment references', () => {
    const plan = planOf(`target_url: http://x
auth: { mode: api_key, key: "token \${LOAD_TOKEN}:\${LOAD_PASSWORD}" }
targets: [{ type: rpc, name: r, method: crm.api.ping }]
`);
    expect(plan.auth).toEqual({ mode: 'api_key', headerName: 'Authorization', key: 'token tok:pw' });
  });

  it('names a missing environment variable, at its line', () => {
    const issues = issuesOf(
      `target_url: http://x\nauth: { mode: bearer, token: "\${NOT_SET_TOKEN}" }\ntargets: [{ type: rpc, name: r, method: a.b }]\n`,
      {},
    );
    expect(issues).toEqual([expect.objectContaining({ code: 'missing_env', path: 'auth.token', line: 2 })]);
    expect(issues[0]!.message).toContain('NOT_SET_TOKEN');
  });

  it('reports unknown templates, unknown seed keys, duplicate scenarios and missing factory modules', () => {
    const issues = issuesOf(`target_url: http://x
auth: { mode: custom, factory: ./missing.ts#auth }
seed: { tenant: acme }
targets:
  - type: endpoint
    name: e
    method: GET
    path: /{{ seed.nope }}
    headers: { X-A: "{{ faker.constructor.name }}", X-B: "{{ process.env }}" }
  - type: endpoint
    name: e
    method: POST
    path: /x
    body_factory: nothere.make
`);
    const codes = issues.map((i) => [i.code, i.path, i.line]);
    expect(codes).toEqual(
      expect.arrayContaining([
        ['factory_not_found', 'auth.factory', 2],
        ['unknown_template', 'targets[0].path', 8],
        ['unknown_template', 'targets[0].headers.X-A', 9],
        ['unknown_template', 'targets[0].headers.X-B', 9],
        ['duplicate_scenario', 'targets[1].name', 11],
        ['factory_not_found', 'targets[1].body_factory', 14],
      ]),
    );
  });

  it('refuses think time with the open model and body together with body_factory', () => {
    const issues = issuesOf(`target_url: http://x
auth: { mode: none }
users: { think_time_seconds: 2 }
rate: { requests_per_second: 5, requests_per_minute: 300 }
targets:
  - { type: endpoint, name: e, method: POST, path: /x, body: { a: 1 }, body_factory: ./factories.ts#makeOrder }
`);
    expect(issues.map((i) => [i.path, i.line])).toEqual(
      expect.arrayContaining([
        ['rate', 4],
        ['targets[0].body_factory', 6],
      ]),
    );
  });

  it('formats issues as file:line:column lines', () => {
    const text = formatIssues('load.yaml', issuesOf('target_url: 5\nauth: { mode: none }\ntargets: []\n'));
    expect(text).toMatch(/^load\.yaml:1:13 {2}invalid_type {2}target_url: /m);
    expect(text).toMatch(/^load\.yaml:3:10 {2}invalid_value {2}targets: at least one scenario/m);
  });
});
