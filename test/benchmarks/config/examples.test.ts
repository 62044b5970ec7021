import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlanFile } from '../../../src/benchmarks/config/load-plan';

const dir = join(import.meta.dirname, '..', '..', '..', 'examples', 'load');
const env = { LOAD_PASSWORD: 'p', LOAD_API_KEY: 'k', LOAD_API_SECRET: 's', LOAD_TOKEN: 't' };

describe('examples/load', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

  it('cover every scenario type and auth mode', async () => {
    const types = new Set<string>();
    const modes = new Set<string>();
    for (const f of files) {
      const r = await loadPlanFile(join(dir, f), env);
      if (!r.ok) throw new Error(`${f}: ${JSON.stringify(r.issues)}`);
      for (const s of r.plan.scenarios) {
        types.add(s.type);
        modes.add(s.auth.mode);
      }
      modes.add(r.plan.auth.mode);
    }
    expect([...types].sort()).toEqual(['doctype', 'endpoint', 'flow', 'rpc']);
    expect([...modes].sort()).toEqual(['api_key', 'bearer', 'custom', 'none', 'session']);
  });

  it('include the reference configuration: 1,000 users, 10,000 requests per minute, p95 200 ms, 1 % errors', async () => {
    const r = await loadPlanFile(join(dir, 'reference.yaml'), env);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.plan.users.peak).toBe(1000);
    expect(r.plan.model.kind === 'open' && r.plan.model.ratePerSecond * 60).toBeCloseTo(10_000);
    expect(r.plan.thresholds).toMatchObject({ p95Ms: 200, errorRate: 0.01 });
    expect(r.plan.auth.mode).toBe('session');
  });
});
