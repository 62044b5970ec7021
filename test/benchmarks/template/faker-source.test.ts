/**
 * faker is loaded only by a plan that may name it: a run of fixed endpoints starts without it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPlanFile } from '../../../src/benchmarks/config/load-plan';
import { loadedFaker, mayUseFaker } from '../../../src/benchmarks/template/faker-source';

// Not the shared test helpers: they load faker for the plans they compile.
const dir = mkdtempSync(join(tmpdir(), 'faker-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const writeConfig = (text: string) => {
  const path = join(dir, 'load.yaml');
  writeFileSync(path, text);
  return path;
};

const PLAN = `target_url: http://127.0.0.1:1
auth: { mode: none }
targets: [{ type: endpoint, name: e, method: GET, path: /x, headers: { X-Who: "\${WHO}" } }]
`;

describe('faker source', () => {
  it('reads a plan without faker without loading it, and loads it for one whose variables name it', async () => {
    const plain = await loadPlanFile(writeConfig(PLAN), { WHO: 'ada' });
    expect(plain.ok).toBe(true);
    expect(loadedFaker()).toBeUndefined();

    const templated = await loadPlanFile(writeConfig(PLAN), { WHO: '{{ faker.person.fullName }}' });
    if (!templated.ok) throw new Error(templated.issues[0]?.message);
    expect(loadedFaker()).toBeDefined();
    const scenario = templated.plan.scenarios[0]!;
    if (scenario.type !== 'endpoint') throw new Error('an endpoint scenario');
    const who = (scenario.headers() as Record<string, string>)['X-Who'];
    expect(who).toMatch(/\S+ \S+/);
  });

  it('looks for faker in the text and in the variables', () => {
    expect(mayUseFaker('path: /{{ faker.string.uuid }}', {})).toBe(true);
    expect(mayUseFaker(`path: /\${ID}`, { ID: '{{faker.string.uuid}}' })).toBe(true);
    expect(mayUseFaker(`path: /\${ID}`, { ID: '7', OTHER: undefined })).toBe(false);
  });
});
