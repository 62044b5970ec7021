import { parseArgs } from 'node:util';
import type { PlatformError } from '../../backend/http/errors';
import { formatIssues } from './config/issues';
import { loadPlanFile, type PlanOverrides } from './config/load-plan';
import { describePlan } from './dry-run';
import { errorCode } from './errors';
import { EXIT, exitCodeOf } from './exit-codes';
import { compareResults, configDifferences, formatCompare, readResult } from './report/compare';
import { formatSummary } from './report/summary-table';
import { runLoadTest } from './run';

/** Text of `--help`. */
const HELP = `Usage: m benchmark --config <file.yaml> [options]
       m benchmark --compare <baseline.json> <candidate.json> [--tolerance 0.1]

Runs the load test a YAML file describes and writes result.json and report.html.

Options:
  --config <file>      load-test configuration (docs/load-testing.md)
  --target-url <url>   override target_url (the same file against another deployment)
  --duration <s>       override duration_seconds
  --users <n>          override users.peak
  --workers <n>        override generator.workers (load-generating threads)
  --out <dir>          output directory (default load-results/<timestamp>/)
  --dry-run            validate and print the resolved plan (templates rendered with a fixed seed,
                       secrets masked); sends nothing
  --watch-pid <pid>    sample CPU and RSS of the target process (/proc) and report the memory trend
  --compare a.json b.json   compare two results; regressions exit 7
  --tolerance <f>      relative change counted as a regression by --compare (default 0.1)
  --help               this text

Exit codes: 0 pass, 1 internal error, 2 usage, 3 thresholds breached, 4 invalid configuration,
            5 target unreachable, 6 generator saturated, 7 regression (--compare)`;

/** Where the CLI writes. */
export interface CliIo {
  out: { write(s: string): unknown; isTTY?: boolean };
  err: { write(s: string): unknown };
}

const defaultIo: CliIo = { out: process.stdout, err: process.stderr };

function intOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer`);
  return n;
}

class UsageError extends Error {}

/** Runs `m benchmark` with `argv` (after the subcommand) and resolves to its exit code. */
export async function benchmarkCli(
  argv: string[],
  io: CliIo = defaultIo,
  env = process.env,
): Promise<number> {
  const say = (s: string) => io.out.write(`${s}\n`);
  const fail = (s: string) => io.err.write(`m benchmark: ${s}\n`);
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (err) {
    fail(`${(err as Error).message}\n\n${HELP}`);
    return EXIT.usage;
  }
  const { values: v, positionals } = args;
  if (v.help) {
    say(HELP);
    return EXIT.pass;
  }
  try {
    if (v.compare) {
      if (positionals.length !== 2) throw new UsageError('--compare needs two result files');
      const tolerance = v.tolerance === undefined ? 0.1 : Number(v.tolerance);
      if (!(tolerance >= 0)) throw new UsageError('--tolerance must be a number >= 0');
      const [a, b] = await Promise.all(positionals.map(readResult));
      const rows = compareResults(a!, b!, tolerance);
      const differences = configDifferences(a!, b!);
      if (differences.length > 0) say(`note: the runs had different loads (${differences.join('; ')})\n`);
      say(formatCompare(rows));
      return rows.some((r) => r.regression) ? EXIT.regression : EXIT.pass;
    }
    if (!v.config) throw new UsageError('--config <file.yaml> is required');
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const overrides: PlanOverrides = {
      targetUrl: v['target-url'],
      durationSeconds: intOption(v.duration, 'duration'),
      users: intOption(v.users, 'users'),
      workers: intOption(v.workers, 'workers'),
    };
    const watchPid = intOption(v['watch-pid'], 'watch-pid');
    let loaded: Awaited<ReturnType<typeof loadPlanFile>>;
    try {
      loaded = await loadPlanFile(v.config, env, overrides);
    } catch (err) {
      fail(`cannot read ${v.config}: ${errorCode(err)}`);
      return EXIT.invalidConfig;
    }
    if (!loaded.ok) {
      io.err.write(`${formatIssues(v.config, loaded.issues)}\n`);
      fail(`${loaded.issues.length} problem(s) in ${v.config}`);
      return EXIT.invalidConfig;
    }
    if (v['dry-run']) {
      io.out.write(describePlan(loaded.plan));
      return EXIT.pass;
    }
    const ac = new AbortController();
    const stop = () => ac.abort();
    process.once('SIGINT', stop);
    try {
      const report = await runLoadTest({
        plan: loaded.plan,
        overrides,
        outDir: v.out,
        watchPid,
        live: io.out,
        signal: ac.signal,
      });
      say(`\n${formatSummary(report.result)}\n\nresult: ${report.jsonPath}\nreport: ${report.htmlPath}`);
      return report.result.verdict.exitCode;
    } finally {
      process.off('SIGINT', stop);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      fail(err.message);
      return EXIT.usage;
    }
    const code = errorCode(err);
    fail(`${(err as PlatformError).message ?? code} (${code})`);
    return exitCodeOf(code);
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: 'string' },
      'target-url': { type: 'string' },
      duration: { type: 'string' },
      users: { type: 'string' },
      workers: { type: 'string' },
      out: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'watch-pid': { type: 'string' },
      compare: { type: 'boolean' },
      tolerance: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
