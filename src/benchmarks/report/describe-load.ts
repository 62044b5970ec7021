import type { LoadResult } from './result';

/** A number as the report prints it: at most two decimals, no trailing zeros. */
const num = (n: number) => `${+n.toFixed(2)}`;

/**
 * The planned load over time in words, from the stages a run followed (its `users.stages` or
 * `rate.stages`, or the ramp-up shorthand's ramp and hold): `0 → 10 users over 3 s, 10 for 8 s, → 0 over
 * 3 s`. A stage of no duration is a jump to its target.
 */
export function describeStages(
  stages: ReadonlyArray<{ durationSeconds: number; target: number }>,
  unit: string,
) {
  let level = 0;
  const parts: string[] = [];
  for (const s of stages) {
    if (s.durationSeconds <= 0) level = s.target;
    else if (s.target === level) parts.push(`${num(level)} ${unit} for ${num(s.durationSeconds)} s`);
    else {
      parts.push(`${num(level)} → ${num(s.target)} ${unit} over ${num(s.durationSeconds)} s`);
      level = s.target;
    }
  }
  return parts.join(', ');
}

/** The report's one-line description of the load a run was asked for. */
export function describeLoad(r: LoadResult): string {
  const c = r.config;
  const model = c.model === 'open' ? 'open model' : 'closed model';
  const plan = c.stages
    ? describeStages(c.stages, c.model === 'open' ? 'req/s' : 'users')
    : c.model === 'open'
      ? `${num(c.targetRps ?? 0)} req/s, ramp-up ${c.rampUpSeconds} s`
      : `${c.users} users, ramp-up ${c.rampUpSeconds} s`;
  const users = c.model === 'open' ? `, ${c.users} users at most` : '';
  return `${model}: ${plan}${users}; ${r.durationSeconds} s measured, ${c.workers} generator thread(s)`;
}
