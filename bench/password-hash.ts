/**
 * What a sign-in's password check costs, as whole processes: `CHECKS` checks of one password, two at a time
 * (as the server's hash gate runs them), against a stored hash of the parameters new hashes use and of the
 * ones they used before, each process measured from start to exit with `/usr/bin/time` (user + system CPU,
 * wall, peak RSS), start-up included. The processes alternate, `ROUNDS` of each; medians are printed, with
 * the ratio of the current parameters to the previous ones and the cost per check net of a process that
 * makes the same stored hash and checks nothing. See docs/security.md#login-throttling.
 *
 *   npm run bench password-hash
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const CHECKS = 40;
const CONCURRENCY = 2;
const ROUNDS = 3;
const root = join(import.meta.dirname, '..');
const script = join(import.meta.dirname, 'support', 'password-checks.ts');

/** Parameter sets compared: what new hashes use, and what they used before. */
const SETS = [
  { name: 'current: N=2^14, r=8, p=2 (16 MiB)', N: 16_384, r: 8, p: 2 },
  { name: 'previous: N=2^15, r=8, p=1 (32 MiB)', N: 32_768, r: 8, p: 1 },
] as const;

interface Measure {
  cpuS: number;
  wallS: number;
  rssMb: number;
}

/** One process under /usr/bin/time, checking `count` passwords. */
function measure(set: (typeof SETS)[number], count: number): Measure {
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%U %S %e %M',
      process.execPath,
      '--import',
      'tsx',
      script,
      ...[set.N, set.r, set.p, count, CONCURRENCY].map(String),
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`the checks failed:\n${r.stderr}`);
  const [user, sys, wall, maxKb] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number) as number[];
  return { cpuS: user! + sys!, wallS: wall!, rssMb: maxKb! / 1024 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const runs = new Map<string, Measure[]>(SETS.map((s) => [s.name, []]));
// Per set, a process that makes its stored hash (one scrypt of those parameters) and checks nothing.
const empty = new Map<string, Measure[]>(SETS.map((s) => [s.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const set of SETS) {
    empty.get(set.name)!.push(measure(set, 0));
    runs.get(set.name)!.push(measure(set, CHECKS));
  }
}
const medians = (ms: Measure[]): Measure => ({
  cpuS: median(ms.map((x) => x.cpuS)),
  wallS: median(ms.map((x) => x.wallS)),
  rssMb: median(ms.map((x) => x.rssMb)),
});
console.log(`${CHECKS} password checks, ${CONCURRENCY} at a time, whole process (median of ${ROUNDS}):`);
const rows = SETS.map((set) => {
  const m = medians(runs.get(set.name)!);
  const base = medians(empty.get(set.name)!);
  const perCheckMs = ((m.cpuS - base.cpuS) / CHECKS) * 1000;
  const perSecond = CHECKS / (m.wallS - base.wallS);
  console.log(
    `  ${set.name}: CPU ${m.cpuS.toFixed(2)} s, wall ${m.wallS.toFixed(2)} s, peak RSS ${m.rssMb.toFixed(0)} MB; ` +
      `net of a process checking none (${base.cpuS.toFixed(2)} s CPU, ${base.wallS.toFixed(2)} s wall): ` +
      `${perCheckMs.toFixed(0)} ms of CPU a check, ${perSecond.toFixed(1)} checks/s`,
  );
  return m;
});
const [now, before] = rows as [Measure, Measure];
console.log(
  `  current / previous: CPU ${(now.cpuS / before.cpuS).toFixed(2)}x, wall ${(now.wallS / before.wallS).toFixed(2)}x, peak RSS ${(now.rssMb / before.rssMb).toFixed(2)}x`,
);
