import { describe, expect, it } from 'vitest';
import { loadPlan } from '../../../src/benchmarks/config/load-plan';
import { describePlan } from '../../../src/benchmarks/dry-run';
import { planFrom, writeConfig } from '../helpers/runtime';

const BASE = `target_url: http://127.0.0.1:1
auth: { mode: none }
targets:
  - { type: endpoint, name: health, method: GET, path: /health }
`;

describe('server_timing in the plan', () => {
  it('is off unless asked, and shown by the dry run only when on', () => {
    const off = planFrom(BASE);
    expect(off.serverTiming).toBe(false);
    expect(describePlan(off)).not.toContain('server_timing');
    const on = planFrom(`${BASE}server_timing: true\n`);
    expect(on.serverTiming).toBe(true);
    expect(describePlan(on)).toContain('server_timing: true');
  });

  it('refuses a value that is not a boolean, at its position', () => {
    const yaml = `${BASE}server_timing: "yes"\n`;
    const r = loadPlan(yaml, writeConfig(yaml), {});
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual([
      expect.objectContaining({ code: 'invalid_type', path: 'server_timing', line: 5 }),
    ]);
  });
});
