import { describe, expect, it } from 'vitest';
import { compileChecks } from '../../../src/benchmarks/checks/checks';
import { judge } from '../../../src/benchmarks/checks/judge';
import { formatIssues } from '../../../src/benchmarks/config/issues';
import { loadPlan } from '../../../src/benchmarks/config/load-plan';
import type { HttpResponse } from '../../../src/benchmarks/engine/http-message';

const res = (status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  text: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('response checks', () => {
  const plan = compileChecks(
    {
      status: [200, 201],
      json: {
        'data.name': { exists: true },
        'data.items[1].qty': { type: 'number' },
        '$.data.email': { matches: '@example\\.com$' },
        'data.status': 'Active',
      },
      headers: { 'Content-Type': { matches: 'json' }, 'x-trace': { exists: false } },
      max_ms: 100,
    },
    [200],
  );

  it('passes a response that satisfies every check', () => {
    const body = { data: { name: 'C-1', items: [{}, { qty: 2 }], email: 'a@example.com', status: 'Active' } };
    expect(judge(plan, res(201, body), 5)).toEqual({ outcome: 'ok', failures: [] });
  });

  it('reports every failed check with its name and reason', () => {
    const body = { data: { items: [{}, { qty: '2' }], email: 'a@other.org', status: 'Lead' } };
    const j = judge(plan, res(200, body, { 'x-trace': '1' }), 150);
    expect(j.outcome).toBe('failed');
    expect(j.failures).toEqual([
      { check: 'json data.name exists', reason: 'data.name: missing' },
      { check: 'json data.items[1].qty is number', reason: 'data.items[1].qty: expected number, got string' },
      {
        check: 'json $.data.email matches /@example\\.com$/',
        reason: '$.data.email: "a@other.org" does not match /@example\\.com$/',
      },
      { check: 'json data.status equals "Active"', reason: 'data.status: expected "Active", got "Lead"' },
      { check: 'header x-trace absent', reason: 'x-trace: present ("1")' },
      { check: 'max_ms 100', reason: 'took 150.0 ms (limit 100)' },
    ]);
  });

  it('judges the status first: an unexpected one names the error code, 429 is throttling', () => {
    expect(judge(plan, res(404, { error: { code: 'not_found', message: 'x' } }), 1)).toEqual({
      outcome: 'failed',
      failures: [{ check: 'status in [200, 201]', reason: 'got 404 (not_found)' }],
    });
    expect(judge(plan, res(429, {}), 1)).toEqual({ outcome: 'throttled', failures: [] });
    expect(judge(compileChecks({ json: { a: 1 } }, [200]), res(200, 'not json'), 1).failures).toEqual([
      { check: 'json a equals 1', reason: 'the body is not JSON' },
    ]);
  });
});

describe('validation of checks, flows and stages', () => {
  it('reports every problem at once with its line and column', () => {
    const yaml = `target_url: http://127.0.0.1:1
auth: { mode: none }
users: { peak: 2, ramp_up_seconds: 5, stages: [{ duration_seconds: 1, target: 2 }] }
duration_seconds: 10
targets:
  - type: endpoint
    name: e
    method: GET
    path: /x
    expect_status: [200]
    expect: { status: 200, json: { "bad path!": 1, ok: { matches: "(" } } }
  - type: flow
    name: f
    steps:
      - { type: endpoint, method: GET, path: "/a/{{ vars.later }}" }
      - { type: doctype, doctype: crm.Customer, op: read, capture: { later: { json: data.name } } }
      - { type: endpoint, name: 3-get, method: GET, path: /b }
`;
    const r = loadPlan(yaml, '/tmp/load.yaml', {});
    if (r.ok) throw new Error('expected issues');
    const text = formatIssues('load.yaml', r.issues);
    expect(text).toMatch(
      /load\.yaml:3:\d+ {2}invalid_value {2}users\.ramp_up_seconds: users\.stages replace ramp_up_seconds/,
    );
    expect(text).toContain('load.yaml:4:19  invalid_value  duration_seconds: users.stages set the duration');
    expect(text).toMatch(
      /load\.yaml:11:\d+ {2}invalid_value {2}targets\[0\]\.expect\.json\.ok\.matches: not a valid regular expression/,
    );
    expect(text).toMatch(
      /load\.yaml:11:\d+ {2}invalid_value {2}targets\[0\]\.expect\.json\.bad path!: a JSON path is like/,
    );
    expect(text).toMatch(
      /load\.yaml:16:\d+ {2}invalid_value {2}targets\[1\]\.steps\[1\]\.id: op read needs the record's id/,
    );
    expect(r.issues).toHaveLength(5);
  });

  it('refuses a variable no earlier step captured, and expect_status beside expect.status', () => {
    const r = loadPlan(
      `target_url: http://127.0.0.1:1
auth: { mode: none }
targets:
  - { type: endpoint, name: e, method: GET, path: /x, expect_status: [200], expect: { status: 201 } }
  - type: flow
    name: f
    steps:
      - { type: endpoint, method: GET, path: "/a/{{ vars.later }}" }
      - { type: rpc, method: crm.api.ping, capture: { later: { json: message } } }
      - { type: rpc, name: 1-get, method: crm.api.ping }
`,
      '/tmp/load.yaml',
      {},
    );
    if (r.ok) throw new Error('expected issues');
    expect(formatIssues('load.yaml', r.issues).split('\n')).toEqual([
      'load.yaml:4:70  invalid_value  targets[0].expect_status: give expect.status or expect_status, not both',
      'load.yaml:8:46  unknown_template  targets[1].steps[0].path: vars.later is not captured by an earlier step of this flow',
      'load.yaml:10:28  duplicate_step  targets[1].steps[2].name: "1-get" is also step 1',
    ]);
  });
});
