import { parseArgs } from 'node:util';
import type { PlatformError } from '../contract';
import { formatIssues } from './config/issues';
import { loadPlanFile, type PlanOverrides } from './config/load-plan';
import { errorCode } from './errors';
import { EXIT, exitCodeOf } from './exit-codes';
import { type Listen, parseListen } from './live/listen';
import { validWorkerName } from './remote/protocol';
import { writeWarning } from './writes';

/** Text of `--help`. */
const HELP = `Usage: m benchmark --config <file.yaml> [options]
       m benchmark --config <file.yaml> --nats <url> --workers <n> [options]
       m benchmark worker --nats <url> [--name <name>] [--threads <n>]
       m benchmark --compare <baseline.json> <candidate.json> [--tolerance 0.1]

Runs the load test a YAML file describes and writes result.json and report.html.

Options:
  --config <file>      load-test configuration (docs/load-testing.md)
  --target-url <url>   override target_url (the same file against another deployment)
  --duration <s>       override duration_seconds
  --users <n>          override users.peak (users.stages: scaled to peak at n)
  --workers <n>        override generator.workers (load-generating threads); with --nats, the number
                       of worker processes to spread the load over
  --threads <n>        (worker) generator threads for each share; default the plan's generator.workers
  --nats <url>         generate the load from worker processes (m benchmark worker) reached over NATS:
                       validated once here, users and rate split exactly, one merged report
  --out <dir>          output directory (default load-results/<timestamp>/)
  --dry-run            validate and print the resolved plan (templates rendered with a fixed seed,
                       secrets masked, unset secrets shown as <unset NAME>); sends nothing
  --cleanup            at the end, delete the records the run created (DocType creates)
  --watch-pid <pid>    sample CPU and RSS of the target process (/proc) and report the memory trend
  --watch-target       read the target's own /metrics once a second (its CPU, memory, database
                       statements, pool, cache and jobs) into the dashboard, result.json and the
                       report; PLATFORM_API_KEY=<api_key>:<api_secret> of a System Manager or a
                       Metrics Reader
  --metrics-port <[host:]port>  serve OpenMetrics (Prometheus) at /metrics while the run lasts
                       (host 127.0.0.1 unless given, e.g. 0.0.0.0:9464)
  --dashboard [[host:]port]     serve a live dashboard (default 127.0.0.1:5665) while the run lasts
  --compare a.json b.json   compare two results; regressions exit 7
  --tolerance <f>      relative change counted as a regression by --compare (default 0.1)
  --help               this text

Exit codes: 0 pass, 1 internal error, 2 usage, 3 thresholds breached, 4 invalid configuration,
            5 target unreachable, 6 generator saturated, 7 regression (--compare),
            8 stopped by a threshold with abort_on_fail, 9 incomplete (a --nats worker was lost,
            or too few workers came)`;

/** `--watch-target`'s credentials: `PLATFORM_API_KEY` (`<api_key>:<api_secret>`), as the other commands take it. */
function watchTargetAuthorization(env: NodeJS.ProcessEnv): { authorization: string } {
  const key = env.PLATFORM_API_KEY ?? '';
  if (!/^[^:\s]+:[^:\s]+$/.test(key)) {
    throw new UsageError(
      '--watch-target needs PLATFORM_API_KEY=<api_key>:<api_secret>, an API key of a System Manager or a Metrics Reader',
    );
  }
  return { authorization: `token ${key}` };
}

/** Where the CLI writes. */
export interface CliIo {
  out: { write(s: string): unknown; isTTY?: boolean };
  err: { write(s: string): unknown };
}

const defaultIo: CliIo = { out: process.stdout, err: process.stderr };

/** Port of the live dashboard when `--dashboard` names none (k6's, so a habit carries over). */
const DEFAULT_DASHBOARD = '5665';

/** `--dashboard` takes an optional value: give it the default when the next word is not an address. */
function withDashboardDefault(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]!);
    if (argv[i] === '--dashboard' && !parseListen(argv[i + 1] ?? '')) out.push(DEFAULT_DASHBOARD);
  }
  return out;
}

function listenOption(value: string | undefined, name: string): Listen | undefined {
  if (value === undefined) return undefined;
  const at = parseListen(value);
  if (!at) throw new UsageError(`--${name} must be a port or host:port`);
  return at;
}

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
    args = parse(withDashboardDefault(argv));
  } catch (err) {
    fail(`${(err as Error).message}\n\n${HELP}`);
    return EXIT.usage;
  }
  const { values: v, positionals } = args;
  if (v.help) {
    say(HELP);
    return EXIT.pass;
  }
  if (positionals[0] === 'worker') return workerCommand(v, positionals, io);
  try {
    if (v.threads !== undefined) throw new UsageError('--threads is an option of m benchmark worker');
    if (v.compare) {
      if (positionals.length !== 2) throw new UsageError('--compare needs two result files');
      const tolerance = v.tolerance === undefined ? 0.1 : Number(v.tolerance);
      if (!(tolerance >= 0)) throw new UsageError('--tolerance must be a number >= 0');
      const { compareResults, configDifferences, formatCompare, formatStageChanges, readResult } =
        await import('./report/compare');
      const [a, b] = await Promise.all(positionals.map(readResult));
      const rows = compareResults(a!, b!, tolerance);
      const differences = configDifferences(a!, b!);
      if (differences.length > 0) say(`note: the runs had different loads (${differences.join('; ')})\n`);
      say(formatCompare(rows));
      const stages = formatStageChanges(a!, b!);
      if (stages) say(`\n${stages}`);
      return rows.some((r) => r.regression) ? EXIT.regression : EXIT.pass;
    }
    if (!v.config) throw new UsageError('--config <file.yaml> is required');
    const remoteWorkers = v.nats ? intOption(v.workers, 'workers') : undefined;
    if (v.nats && remoteWorkers === undefined) throw new UsageError('--nats needs --workers <n>');
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const overrides: PlanOverrides = {
      targetUrl: v['target-url'],
      durationSeconds: intOption(v.duration, 'duration'),
      users: intOption(v.users, 'users'),
      // With --nats, --workers counts worker processes; each runs the file's generator.workers threads.
      workers: v.nats ? undefined : intOption(v.workers, 'workers'),
    };
    const watchPid = intOption(v['watch-pid'], 'watch-pid');
    const watchTarget = v['watch-target'] ? watchTargetAuthorization(env) : undefined;
    const serve = {
      metrics: listenOption(v['metrics-port'], 'metrics-port'),
      dashboard: listenOption(v.dashboard, 'dashboard'),
    };
    let loaded: Awaited<ReturnType<typeof loadPlanFile>>;
    try {
      loaded = await loadPlanFile(v.config, env, overrides, { placeholders: v['dry-run'] === true });
    } catch (err) {
      fail(`cannot read ${v.config}: ${errorCode(err)}`);
      return EXIT.invalidConfig;
    }
    if (!loaded.ok) {
      io.err.write(`${formatIssues(v.config, loaded.issues)}\n`);
      fail(`${loaded.issues.length} problem(s) in ${v.config}`);
      return EXIT.invalidConfig;
    }
    const warning = writeWarning(loaded.plan, v.cleanup === true);
    if (v['dry-run']) {
      const { describePlan } = await import('./dry-run');
      io.out.write(describePlan(loaded.plan));
      if (warning) io.err.write(`${warning}\n`);
      return EXIT.pass;
    }
    if (warning) io.err.write(`${warning}\n`);
    const ac = new AbortController();
    const stop = () => ac.abort();
    process.once('SIGINT', stop);
    // Loaded here: --help, --compare and --dry-run do not read the engine.
    const [{ runLoadTest }, { formatSummary }] = await Promise.all([
      import('./run'),
      import('./report/summary-table'),
    ]);
    try {
      const report = await runLoadTest({
        plan: loaded.plan,
        outDir: v.out,
        cleanup: v.cleanup === true,
        serve,
        remote: v.nats ? { natsUrl: v.nats, workers: remoteWorkers! } : undefined,
        onWorkerLost: (name) => io.err.write(`m benchmark: worker ${name} was lost; the run is incomplete\n`),
        onServing: (urls) => {
          if (urls.metrics) io.err.write(`metrics: ${urls.metrics}\n`);
          if (urls.dashboard) io.err.write(`dashboard: ${urls.dashboard}\n`);
        },
        watchPid,
        watchTarget,
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

/** `m benchmark worker --nats <url> [--name <name>] [--threads <n>]`: serves runs until SIGINT or SIGTERM. */
async function workerCommand(
  v: ReturnType<typeof parse>['values'],
  positionals: string[],
  io: CliIo,
): Promise<number> {
  const fail = (s: string) => {
    io.err.write(`m benchmark worker: ${s}\n`);
    return EXIT.usage;
  };
  if (positionals.length > 1) return fail(`unexpected argument ${positionals[1]}`);
  if (!v.nats) return fail('--nats <url> is required');
  // Loaded only here: a local run never needs the NATS client.
  const { defaultWorkerName, runWorker } = await import('./remote/worker');
  const name = v.name ?? defaultWorkerName();
  if (!validWorkerName(name)) return fail('--name is 1 to 64 letters, digits, - or _');
  const threads = v.threads === undefined ? undefined : Number(v.threads);
  if (threads !== undefined && !(Number.isInteger(threads) && threads > 0 && threads <= 64))
    return fail('--threads must be an integer from 1 to 64');
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await runWorker(v.nats, name, ac.signal, (s) => io.err.write(`${s}\n`), { threads });
    return EXIT.pass;
  } catch (err) {
    io.err.write(`m benchmark worker: ${(err as Error).message} (${errorCode(err)})\n`);
    return exitCodeOf(errorCode(err));
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
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
      threads: { type: 'string' },
      out: { type: 'string' },
      'dry-run': { type: 'boolean' },
      cleanup: { type: 'boolean' },
      'watch-pid': { type: 'string' },
      'watch-target': { type: 'boolean' },
      'metrics-port': { type: 'string' },
      nats: { type: 'string' },
      name: { type: 'string' },
      dashboard: { type: 'string' },
      compare: { type: 'boolean' },
      tolerance: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
