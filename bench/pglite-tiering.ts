/**
 * What V8's optimising tier for the embedded database's WASM buys and costs (docs/performance.md#memory):
 * the same records mix (bench/support/pglite-mix.ts: a create and its history entry, a get, a page of 20,
 * an update) in two whole processes on disk, one with baseline code only (the default) and one with
 * `server.pglite_optimize`. Each process runs under `/usr/bin/time -f '%U %S %e %M'` (start-up, the
 * database's start and every thread included); the sides alternate in `ROUNDS` pairs. Prints, per side, the
 * median of the whole process's CPU and peak RSS, and of the CPU per round once warm, and the ratios
 * optimising / baseline.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUNDS = 3;
const WARM = process.env.BENCH_TIERING_WARM ?? '2000';
const MIX = process.env.BENCH_TIERING_ROUNDS ?? '3000';
const SIDES = ['baseline', 'optimizing'] as const;
type Side = (typeof SIDES)[number];

interface Run {
  cpuS: number;
  wallS: number;
  peakMb: number;
  cpuMsPerRound: number;
}

function runSide(side: Side, dir: string, warm = WARM, mix = MIX): Run {
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      'TIME %U %S %e %M',
      process.execPath,
      '--import',
      'tsx',
      join(import.meta.dirname, 'support', 'pglite-mix.ts'),
      side,
      dir,
      warm,
      mix,
    ],
    { encoding: 'utf8', cwd: join(import.meta.dirname, '..') },
  );
  const time = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  if (r.status !== 0 || !time) throw new Error(`the ${side} side failed: ${r.stderr.slice(-500)}`);
  const inner = JSON.parse(line) as { cpuMsPerRound: number };
  return {
    cpuS: Number(time[1]) + Number(time[2]),
    wallS: Number(time[3]),
    peakMb: Number(time[4]) / 1024,
    cpuMsPerRound: inner.cpuMsPerRound,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const temp = mkdtempSync(join(tmpdir(), 'bench-tiering-'));
try {
  // Each side's cluster is created first, untimed: creating one runs initdb in a child process of its own
  // (hundreds of MB), which would be the peak RSS /usr/bin/time reports for the timed process.
  for (const side of SIDES) runSide(side, temp, '0', '1');
  const runs: Record<Side, Run[]> = { baseline: [], optimizing: [] };
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 === 0 ? SIDES : ([...SIDES].reverse() as Side[]);
    for (const side of order) runs[side].push(runSide(side, temp));
  }
  const summary = (side: Side) => ({
    cpuS: median(runs[side].map((r) => r.cpuS)),
    wallS: median(runs[side].map((r) => r.wallS)),
    peakMb: median(runs[side].map((r) => r.peakMb)),
    perRound: median(runs[side].map((r) => r.cpuMsPerRound)),
  });
  const base = summary('baseline');
  const opt = summary('optimizing');
  console.log(
    `PGlite records mix (${WARM} rounds warm-up, then ${MIX} measured; 5 statements a round), ${ROUNDS} pairs, medians:`,
  );
  for (const [label, s] of [
    ['baseline code only (default)', base],
    ['optimising tier (server.pglite_optimize)', opt],
  ] as const) {
    console.log(
      `  ${label.padEnd(42)} whole process: CPU ${s.cpuS.toFixed(2)} s, wall ${s.wallS.toFixed(2)} s, peak RSS ${s.peakMb.toFixed(0)} MB; CPU per round once warm ${s.perRound.toFixed(3)} ms`,
    );
  }
  console.log(
    `  optimising / baseline: whole-process CPU ${(opt.cpuS / base.cpuS).toFixed(2)}x, peak RSS ${(opt.peakMb / base.peakMb).toFixed(2)}x, CPU per round once warm ${(opt.perRound / base.perRound).toFixed(2)}x`,
  );
} finally {
  rmSync(temp, { recursive: true, force: true });
}
