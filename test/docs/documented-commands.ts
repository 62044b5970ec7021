/**
 * Every command README.md and docs/**\/*.md tell their reader to run, by document, and how each is verified
 * (test/docs/documented-commands.test.ts fails on a documented command missing here, and on an entry no
 * document mentions any more). Each entry is one of:
 * - `run`: run by that test, in a temporary folder, against a temporary data directory or the one `m serve`
 *   it starts on a free port; it passes when the command exits 0 and did what the document says;
 * - `testedBy`: run by another test file, which must exist and contain `evidence` (how it runs the command);
 * - `notRun`: why it cannot run inside `npm test`; printed on every run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CommandRun, ROOT, type Sandbox } from './sandbox';

/** How one documented command is verified. */
export type Verification =
  | { run: (sandbox: Sandbox, command: string) => Promise<CommandRun> }
  | { testedBy: string; evidence: RegExp }
  | { notRun: string; check?: () => string | undefined };

/** A command of a document, as `commandsOfMarkdown` normalises it, and how it is verified. */
export type DocumentedCommandEntry = { document: string; command: string } & Verification;

/** A failed expectation on a command that exited 0. */
function problem(run: CommandRun, message: string | undefined): CommandRun {
  return message ? { ...run, problem: message } : run;
}

/** `GET path` on the shared server, as the status and the body. */
async function probe(sandbox: Sandbox, path: string): Promise<{ status: number; body: string }> {
  const { url } = await sandbox.server();
  const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(15_000) });
  return { status: res.status, body: await res.text() };
}

/**
 * `m serve`: started once (shared), then asked over HTTP which services it serves. (Not its remotes: on a
 * fresh clone no remote is built until `npm start` or `--build-missing` builds them.)
 */
async function serveAndProbe(sandbox: Sandbox): Promise<CommandRun> {
  const { url } = await sandbox.server();
  const { status, body } = await probe(sandbox, '/api/gateway/services');
  const run = {
    status: 0,
    stdout: `${url}/api/gateway/services: ${status} ${body.slice(0, 300)}`,
    stderr: '',
  };
  return problem(
    run,
    status === 200 && body.includes('"crm"') ? undefined : 'GET /api/gateway/services did not list crm',
  );
}

/** `m new app <name>` into an empty folder; checks the app module it writes. */
function newApp(sandbox: Sandbox): Promise<CommandRun> {
  return sandbox.once('new app', async () => {
    const cwd = sandbox.folder('new-app');
    const run = await sandbox.m(['new', 'app', 'orders'], { cwd });
    return problem(
      run,
      existsSync(join(cwd, 'orders', 'app.ts')) ? undefined : 'no orders/app.ts was written',
    );
  });
}

/** `m new app notes --dir ../notes` from a folder beside the target, as docs/mfe-teams.md does. */
function newAppBeside(sandbox: Sandbox): Promise<CommandRun> {
  return sandbox.once('new app --dir', async () => {
    const cwd = sandbox.folder('team/platform');
    const run = await sandbox.m(['new', 'app', 'notes', '--dir', '../notes'], { cwd });
    const pkg = join(sandbox.temp, 'team', 'notes', 'package.json');
    return problem(run, existsSync(pkg) ? undefined : `no ${pkg} was written`);
  });
}

/** `m types --gateway <url> [--out file]` against the shared server; checks a DocType's record type. */
async function types(sandbox: Sandbox, out: string): Promise<CommandRun> {
  const { url } = await sandbox.server();
  const file = join(sandbox.folder('types'), out);
  const run = await sandbox.m(['types', '--gateway', url, '--out', file], {
    env: { PLATFORM_ADMIN_PASSWORD: 'admin' },
  });
  const written = existsSync(file) ? readFileSync(file, 'utf8') : '';
  return problem(run, written.includes('crm.Customer') ? undefined : `${file} names no crm.Customer`);
}

/** A small load test of the shared server: two signed-in users for two seconds, calling `crm.api.ping`. */
async function loadConfig(sandbox: Sandbox): Promise<string> {
  const { url } = await sandbox.server();
  return sandbox.once('load.yaml', async () => {
    const file = join(sandbox.folder('load'), 'load.yaml');
    writeFileSync(
      file,
      `target_url: ${url}
auth: { mode: session, username: Administrator, password: "\${LOAD_PASSWORD}" }
users: { peak: 2, think_time_seconds: 0.2 }
duration_seconds: 2
targets: [{ type: rpc, name: ping, method: crm.api.ping }]
`,
    );
    return file;
  });
}

/** A load-test run: exit 0 and a result.json in its output folder. */
async function loadTest(sandbox: Sandbox, argv: [string, ...string[]], cwd = ROOT): Promise<CommandRun> {
  const out = sandbox.folder(`load-out-${Math.random().toString(36).slice(2)}`);
  const [command, ...args] = argv;
  const run = await sandbox.run(command, [...args, '--out', out], {
    cwd,
    env: { LOAD_PASSWORD: 'admin' },
    timeoutMs: 90_000,
  });
  return problem(run, existsSync(join(out, 'result.json')) ? undefined : `no result.json in ${out}`);
}

/** A documented load configuration run briefly (two users, a few seconds) against the shared server. */
async function exampleLoad(sandbox: Sandbox, config: string, extra: string[] = []): Promise<CommandRun> {
  const { url } = await sandbox.server();
  const m = join(ROOT, 'bin', 'm.js');
  return loadTest(sandbox, [
    process.execPath,
    m,
    'benchmark',
    '--config',
    config,
    '--target-url',
    url,
    '--duration',
    '3',
    '--users',
    '2',
    ...extra,
  ]);
}

/** `m user add | list | roles | passwd | disable | enable`, offline on a stopped server's data directory. */
function userCommands(sandbox: Sandbox): Promise<CommandRun> {
  return sandbox.once('user', async () => {
    const dataDir = sandbox.folder('users-data');
    const user = (args: string[]) =>
      sandbox.m(['user', ...args, '--data-dir', dataDir], { env: { NEW_PASSWORD: 'a long pass phrase 1' } });
    const steps: [string[], (run: CommandRun) => string | undefined][] = [
      [['add', 'ana@example.com', '--role', 'Sales User', '--password-env', 'NEW_PASSWORD'], () => undefined],
      [['roles', 'ana@example.com', 'Stock User'], () => undefined],
      [['passwd', 'ana@example.com', '--password-env', 'NEW_PASSWORD'], () => undefined],
      [['disable', 'ana@example.com'], () => undefined],
      [
        ['list', '--json'],
        (run) => {
          const ana = (JSON.parse(run.stdout) as { name: string; roles: string[]; enabled: boolean }[]).find(
            (u) => u.name === 'ana@example.com',
          );
          return ana && !ana.enabled && ana.roles.includes('Stock User')
            ? undefined
            : `list --json does not show ana@example.com disabled with Stock User: ${run.stdout}`;
        },
      ],
      [['enable', 'ana@example.com'], () => undefined],
      [
        ['list'],
        (run) => (run.stdout.includes('ana@example.com') ? undefined : 'list does not show ana@example.com'),
      ],
    ];
    let last: CommandRun = { status: 0, stdout: '', stderr: '' };
    for (const [args, check] of steps) {
      last = await user(args);
      if (last.status !== 0) return { ...last, stderr: `m user ${args.join(' ')}:\n${last.stderr}` };
      const wrong = check(last);
      if (wrong) return problem(last, `m user ${args.join(' ')}: ${wrong}`);
    }
    return last;
  });
}

/** `m user add prometheus --role "Metrics Reader"` (docs/operators.md#metrics): the scraper's user. */
function metricsReader(sandbox: Sandbox): Promise<CommandRun> {
  return sandbox.once('metrics reader', async () => {
    const dataDir = sandbox.folder('metrics-data');
    const env = { PROMETHEUS_PASSWORD: 'a long pass phrase 2' };
    const add = await sandbox.m(
      [
        'user',
        'add',
        'prometheus',
        '--role',
        'Metrics Reader',
        '--password-env',
        'PROMETHEUS_PASSWORD',
        '--data-dir',
        dataDir,
      ],
      { env },
    );
    if (add.status !== 0) return add;
    const list = await sandbox.m(['user', 'list', '--json', '--data-dir', dataDir]);
    const user = (JSON.parse(list.stdout) as { name: string; roles: string[] }[]).find(
      (u) => u.name === 'prometheus',
    );
    return problem(
      add,
      user?.roles.join() === 'Metrics Reader'
        ? undefined
        : `m user list does not show prometheus with Metrics Reader only: ${list.stdout}`,
    );
  });
}

/** The statuses `m keys list --json` prints, newest key first. */
function keyStatuses(list: CommandRun): string[] {
  try {
    return (JSON.parse(list.stdout) as { keys: { status: string }[] }).keys.map((k) => k.status);
  } catch {
    return [];
  }
}

/**
 * `m keys rotate` twice on a fresh data directory (the first makes the first key), then `m keys list`: the
 * newer key active, the older one retired and still decrypting.
 */
function keyCommands(sandbox: Sandbox): Promise<{ rotate: CommandRun; list: CommandRun }> {
  return sandbox.once('keys', async () => {
    const dataDir = sandbox.folder('keys-data');
    const first = await sandbox.m(['keys', 'rotate', '--data-dir', dataDir]);
    if (first.status !== 0) return { rotate: first, list: first };
    const rotate = await sandbox.m(['keys', 'rotate', '--data-dir', dataDir]);
    const list = await sandbox.m(['keys', 'list', '--json', '--data-dir', dataDir]);
    return { rotate, list };
  });
}

/** `m keys list`: lists both keys with their statuses. */
async function keysList(sandbox: Sandbox): Promise<CommandRun> {
  const { rotate, list } = await keyCommands(sandbox);
  if (rotate.status !== 0) return { ...rotate, stderr: `m keys rotate (run first):\n${rotate.stderr}` };
  const statuses = keyStatuses(list);
  return problem(list, statuses[0] === 'active' ? undefined : `no active key listed first: ${list.stdout}`);
}

/** `m keys rotate`: the previous key is retired but still decrypts, the new one is active. */
async function keysRotate(sandbox: Sandbox): Promise<CommandRun> {
  const { rotate, list } = await keyCommands(sandbox);
  const statuses = keyStatuses(list);
  const rotated =
    statuses.length === 2 && statuses[0] === 'active' && /^retired, decrypts until/.test(statuses[1]!);
  return problem(rotate, rotated ? undefined : `after two rotations m keys list shows ${list.stdout}`);
}

/**
 * The API-key and bearer-token lines of docs/load-testing.md#authentication, run as written by bash against
 * the shared server: BASE set to its URL, the cookie jar in the temporary folder, and the `...` the reader
 * fills in taken from the previous answer. Ends with a request authenticated by the token.
 */
function credentialsFlow(sandbox: Sandbox): Promise<CommandRun> {
  return sandbox.once('credentials', async () => {
    const { url } = await sandbox.server();
    const doc = readFileSync(join(ROOT, 'docs', 'load-testing.md'), 'utf8');
    const jar = join(sandbox.temp, 'jar');
    const block = (marker: string) => {
      const start = doc.indexOf(marker);
      const end = doc.indexOf('```', start);
      return doc
        .slice(start, end)
        .split('\n')
        .filter((line) => !line.startsWith('export ') && !line.startsWith('BASE='))
        .join('\n')
        .replaceAll('/tmp/jar', jar);
    };
    const key = await sandbox.bash(`BASE=${url}\n${block('CSRF=$(curl')}`);
    if (key.status !== 0) return key;
    const answer = JSON.parse(key.stdout) as { message?: { api_key?: string; api_secret?: string } };
    if (!answer.message?.api_key || !answer.message.api_secret)
      return problem(key, 'no api_key and api_secret');
    const token = await sandbox.bash(`BASE=${url}\n${block('curl -s -H "Authorization: token')}`, {
      env: { LOAD_API_KEY: answer.message.api_key, LOAD_API_SECRET: answer.message.api_secret },
    });
    if (token.status !== 0) return token;
    const accessToken = (JSON.parse(token.stdout) as { message?: { access_token?: string } }).message
      ?.access_token;
    if (!accessToken) return problem(token, 'no access_token');
    const res = await fetch(`${url}/api/method/crm.api.ping`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    return problem(
      { ...token, stdout: `${token.stdout}\nGET crm.api.ping with the token: ${res.status}` },
      res.status === 200 ? undefined : `the issued token was refused (${res.status})`,
    );
  });
}

const BENCHMARK_NOT_RUN =
  'NOT RUN: a benchmark loads this machine for minutes on purpose and prints ratios, with nothing to pass or ' +
  'fail on but timings (and a test must not assert timings); run it by hand, alone on the machine';

/** A check that `bench/<name>.ts` exists, so a renamed benchmark still fails here. */
function benchExists(name: string): () => string | undefined {
  return () =>
    existsSync(join(ROOT, 'bench', `${name}.ts`)) ? undefined : `bench/${name}.ts does not exist`;
}

const FULL_BUILD_NOT_RUN =
  'NOT RUN: rebuilds dist/ and every app static/mfe/ of this checkout with webpack in production mode ' +
  '(minutes on a 2-core machine) while other test files serve those very files; the end-to-end tests build ' +
  'the same targets through `m serve --build-missing` (node scripts/build.js --missing)';

/** Every documented command and how it is verified. */
export const DOCUMENTED_COMMANDS: DocumentedCommandEntry[] = [
  // README.md
  {
    document: 'README.md',
    command: 'npm install',
    notRun:
      'NOT RUN: fetches the dependencies from the registry and rewrites node_modules/, which this test and ' +
      'every other one are running from; a fresh clone runs it once before `npm test`',
  },
  {
    document: 'README.md',
    command: 'npm start',
    testedBy: 'test/faults/npm-start.test.ts',
    evidence: /'npm',\s*\[\s*'start'/,
  },
  {
    document: 'README.md',
    command: 'npm test',
    notRun: 'NOT RUN: `npm test` runs this very file: running it here would recurse without end',
  },
  { document: 'README.md', command: 'npm run build', notRun: FULL_BUILD_NOT_RUN },
  {
    document: 'README.md',
    command: 'npm run dev',
    testedBy: 'test/e2e/support/dev-server.ts',
    evidence: /'scripts', 'dev\.js'/,
  },
  { document: 'README.md', command: 'npm run bench [name]', notRun: BENCHMARK_NOT_RUN },
  {
    document: 'README.md',
    command: 'npm run typecheck',
    notRun: 'NOT RUN here: `npm test` runs `npm run typecheck` itself, before any test file starts',
  },
  {
    document: 'README.md',
    command: 'npm run lint',
    notRun: 'NOT RUN here: `npm test` runs `npm run lint` itself, before any test file starts',
  },
  {
    document: 'README.md',
    command: 'npm run format',
    notRun:
      'NOT RUN: rewrites the files of this checkout in place; `npm run lint` (run by `npm test`) is the same ' +
      'Biome check without --write',
  },
  {
    document: 'README.md',
    command: 'npm run start:macro',
    testedBy: 'test/faults/start-macro.test.ts',
    evidence: /'scripts\/start-macro\.js'/,
  },
  { document: 'README.md', command: 'm serve', run: serveAndProbe },
  { document: 'README.md', command: 'm new app <name>', run: newApp },
  { document: 'README.md', command: 'm types --gateway <url>', run: (s) => types(s, 'desk-types.d.ts') },
  {
    document: 'README.md',
    command: 'm benchmark --config load.yaml',
    run: async (s) =>
      loadTest(s, [
        process.execPath,
        join(ROOT, 'bin', 'm.js'),
        'benchmark',
        '--config',
        await loadConfig(s),
      ]),
  },
  {
    document: 'README.md',
    command: 'm benchmark worker --nats <url>',
    testedBy: 'test/benchmarks/remote/nats-workers.test.ts',
    evidence: /'worker', '--nats'/,
  },
  { document: 'README.md', command: 'm keys list', run: keysList },
  { document: 'README.md', command: 'm keys rotate', run: keysRotate },
  {
    document: 'README.md',
    command: 'm audit verify',
    testedBy: 'test/faults/at-rest.test.ts',
    evidence: /spawnM\(\['audit', 'verify'/,
  },
  {
    document: 'README.md',
    command: 'm user add | list | roles | passwd | disable | enable',
    run: userCommands,
  },
  {
    document: 'README.md',
    command: 'm release publish | list | promote | rollback | canary | pin',
    testedBy: 'test/cli/release.test.ts',
    evidence: new RegExp(
      ['publish', 'list', 'promote', 'rollback', 'canary', 'pin']
        .map((action) => `(?=[\\s\\S]*'release',\\s+'${action}')`)
        .join(''),
    ),
  },

  // docs/load-testing.md
  {
    document: 'docs/load-testing.md',
    command: 'm benchmark --config examples/load/crm-session.yaml',
    run: (s) => exampleLoad(s, 'examples/load/crm-session.yaml'),
  },
  {
    document: 'docs/load-testing.md',
    command: 'node --import tsx src/benchmarks/load-test.ts --config load.yaml',
    run: async (s) =>
      loadTest(s, [
        process.execPath,
        '--import',
        'tsx',
        'src/benchmarks/load-test.ts',
        '--config',
        await loadConfig(s),
      ]),
  },
  {
    document: 'docs/load-testing.md',
    command: 'npm run build:harness',
    testedBy: 'test/benchmarks/entries.test.ts',
    evidence: /'build:harness'/,
  },
  {
    document: 'docs/load-testing.md',
    command: 'node dist/benchmarks/load-test.js --config load.yaml',
    testedBy: 'test/benchmarks/entries.test.ts',
    evidence: /'dist\/benchmarks\/load-test\.js', '--config'/,
  },
  {
    document: 'docs/load-testing.md',
    command: 'python -m platform_studio.benchmarks.load_test --config load.yaml',
    testedBy: 'test/benchmarks/entries.test.ts',
    evidence: /'-m', 'platform_studio\.benchmarks\.load_test', '--config'/,
  },
  { document: 'docs/load-testing.md', command: 'm serve &', run: serveAndProbe },
  {
    document: 'docs/load-testing.md',
    command: 'PLATFORM_API_KEY=<api_key>:<api_secret> m benchmark --config load.yaml --watch-target',
    testedBy: 'test/benchmarks/watch/watch-target-cli.test.ts',
    evidence: /'--watch-target'\]/,
  },
  {
    document: 'docs/load-testing.md',
    command:
      'LOAD_PASSWORD=admin m benchmark --config examples/load/reference.yaml --duration 120 --watch-pid $!',
    // A 1,000-user load on purpose: run with --dry-run, which validates the file, the secret from the
    // environment and the flags, and prints the plan; crm-session.yaml above runs the same way for real.
    run: async (s) => {
      const { pid } = await s.server();
      const run = await s.m(
        [
          'benchmark',
          '--config',
          'examples/load/reference.yaml',
          '--duration',
          '120',
          '--watch-pid',
          String(pid),
          '--dry-run',
        ],
        { cwd: ROOT, env: { LOAD_PASSWORD: 'admin' } },
      );
      return problem(run, /peak: 1000/.test(run.stdout) ? undefined : 'the plan shows no 1,000-user peak');
    },
  },
  { document: 'docs/load-testing.md', command: 'BASE=http://127.0.0.1:8000', run: credentialsFlow },
  {
    document: 'docs/load-testing.md',
    command:
      'CSRF=$(curl -s -c /tmp/jar -H \'content-type: application/json\' -d \'{"usr":"Administrator","pwd":"admin"}\' "$BASE/api/method/login" | jq -r .csrf_token)',
    run: credentialsFlow,
  },
  {
    document: 'docs/load-testing.md',
    command:
      'curl -s -b /tmp/jar -H "x-csrf-token: $CSRF" -H \'content-type: application/json\' -d \'{}\' "$BASE/api/method/platform.auth.generate_api_key"',
    run: credentialsFlow,
  },
  {
    document: 'docs/load-testing.md',
    command: 'export LOAD_API_KEY=... LOAD_API_SECRET=...',
    run: credentialsFlow,
  },
  {
    document: 'docs/load-testing.md',
    command:
      'curl -s -H "Authorization: token $LOAD_API_KEY:$LOAD_API_SECRET" -H \'content-type: application/json\' -d \'{"expires_in": 3600}\' "$BASE/api/method/platform.auth.issue_token"',
    run: credentialsFlow,
  },
  { document: 'docs/load-testing.md', command: 'export LOAD_TOKEN=...', run: credentialsFlow },
  {
    document: 'docs/load-testing.md',
    command: 'm benchmark worker --nats nats://nats.internal:4222 --name gen-1',
    testedBy: 'test/benchmarks/remote/nats-workers.test.ts',
    evidence: /'worker', '--nats', nats\.url, '--name'/,
  },
  {
    document: 'docs/load-testing.md',
    command: 'm benchmark --config load.yaml --nats nats://nats.internal:4222 --workers 3',
    testedBy: 'test/benchmarks/remote/nats-workers.test.ts',
    evidence: /'--config', path, '--nats', nats\.url, '--workers'/,
  },

  // docs/mfe-teams.md
  { document: 'docs/mfe-teams.md', command: 'm new app notes --dir ../notes', run: newAppBeside },
  {
    document: 'docs/mfe-teams.md',
    command: 'cd ../notes',
    run: async (s) => {
      // `cd` reaches the folder `m new app --dir ../notes` wrote (newAppBeside checks its package.json).
      const made = await newAppBeside(s);
      if (made.status !== 0 || made.problem) return made;
      const run = await s.bash('cd ../notes && pwd', { cwd: join(s.temp, 'team', 'platform') });
      return problem(
        run,
        run.stdout.trim().endsWith('/team/notes') ? undefined : `cd ended in ${run.stdout}`,
      );
    },
  },
  {
    document: 'docs/mfe-teams.md',
    command: 'npm install',
    testedBy: 'test/e2e/support/scaffolded-app.ts',
    evidence: /'npm install', npm, \['install'/,
  },
  {
    document: 'docs/mfe-teams.md',
    command: 'npm test',
    testedBy: 'test/e2e/mfe-app.test.ts',
    evidence: /app\.run\('npm test', npm, \['test'\]\)/,
  },
  {
    document: 'docs/mfe-teams.md',
    command: 'npm run build',
    testedBy: 'test/e2e/mfe-app.test.ts',
    evidence: /app\.run\('npm run build', npm, \['run', 'build'\]\)/,
  },
  {
    document: 'docs/mfe-teams.md',
    command: 'npm start',
    testedBy: 'test/e2e/support/scaffolded-app.ts',
    evidence: /const args = \['start'/,
  },
  {
    document: 'docs/mfe-teams.md',
    command: 'npm run dev -- --offline',
    // In a scaffolded folder, with no server running; Chromium stores and lists a Note through the worker.
    testedBy: 'test/e2e/mfe-app.test.ts',
    evidence: /spawn\(npm, \['run', 'dev', '--', '--offline'/,
  },
  { document: 'docs/mfe-teams.md', command: 'node scripts/build.js', notRun: FULL_BUILD_NOT_RUN },
  {
    document: 'docs/mfe-teams.md',
    command: 'node scripts/build.js --missing',
    // `m serve --build-missing` runs it (bin/m.js) before the Desk tests start.
    testedBy: 'test/e2e/support/desk-target.ts',
    evidence: /'serve', '--build-missing'/,
  },
  {
    document: 'docs/mfe-teams.md',
    command: 'node scripts/build.js --only shell,crm',
    notRun:
      'NOT RUN: rebuilds the shell and the crm remote of this checkout with webpack (dist/shell/, ' +
      'backend/apps/crm/static/mfe/) while other test files serve those very files',
  },
  {
    document: 'docs/mfe-teams.md',
    command: 'PLATFORM_ADMIN_PASSWORD=... m types --gateway https://desk.example.com --out types/desk.d.ts',
    run: (s) => types(s, 'desk.d.ts'),
  },
  ...(
    [
      ['m release publish [--dir <app folder>]', /'release',\s+'publish',\s+'--dir'/],
      ['m release publish', /m\(\['release',\s+'publish'\],\s+\{\},\s+folder\)/],
      ['m release list <service>', /'release',\s+'list',\s+'crm'/],
      [
        'm release promote <service> <version> [--force]',
        /'release',\s+'promote',\s+'crm',\s+v3,\s+'--force'/,
      ],
      ['m release promote notes 1.1.0+3f9a0c1d2e4b', /'release',\s+'promote',\s+'crm',\s+v2/],
      ['m release rollback <service>', /'release',\s+'rollback',\s+'crm'/],
      ['m release rollback notes', /'release',\s+'rollback',\s+'crm'/],
      [
        'm release canary <service> <version> --percent <n>',
        /'release',\s+'canary',\s+'crm',\s+v2,\s+'--percent'/,
      ],
      [
        'm release pin <service> <version> --user <u> | --role <r>',
        /'release',\s+'pin',\s+'crm',\s+v1,\s+'--role'/,
      ],
    ] as const
  ).map(([command, evidence]) => ({
    document: 'docs/mfe-teams.md',
    command,
    testedBy: 'test/cli/release.test.ts',
    evidence,
  })),

  // docs/operators.md
  {
    document: 'docs/operators.md',
    command: 'npm run start:macro',
    testedBy: 'test/faults/start-macro.test.ts',
    evidence: /'scripts\/start-macro\.js'/,
  },
  {
    document: 'docs/operators.md',
    command: 'm serve --mode macroservice',
    testedBy: 'test/e2e/mfe-app.test.ts',
    evidence: /'serve', '--mode', 'macroservice', '--build-missing'/,
  },
  {
    document: 'docs/operators.md',
    command: 'm serve --mode macroservice --app crm',
    testedBy: 'test/backend/roots/service-process.test.ts',
    evidence: /'serve', '--config', configFile, '--mode', 'macroservice', '--app', app/,
  },
  ...[
    'm user add <name> --role <role>... [--password-env VAR]',
    'm user list [--json]',
    'm user roles <name> <role>...',
    'm user passwd <name> [--password-env VAR]',
    'm user disable <name>',
    'm user enable <name>',
  ].map((command) => ({ document: 'docs/operators.md', command, run: userCommands })),
  {
    document: 'docs/operators.md',
    command: 'm user add prometheus --role "Metrics Reader" --password-env PROMETHEUS_PASSWORD',
    run: metricsReader,
  },
  { document: 'docs/operators.md', command: 'm keys list', run: keysList },
  { document: 'docs/operators.md', command: 'm keys rotate', run: keysRotate },
  {
    document: 'docs/operators.md',
    command: 'm keys rotate --app crm',
    testedBy: 'test/faults/owner-keys-heap.test.ts',
    evidence: /spawnM\(\['keys', 'rotate', '--app', 'crm'/,
  },
  {
    document: 'docs/operators.md',
    command:
      'PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY=<old> PLATFORM_RECORDS_KEY_ENCRYPTION_KEY=<new> m keys rewrap --data-dir .platform',
    testedBy: 'test/faults/at-rest-rewrap.test.ts',
    evidence: /spawnM\(\['keys', 'rewrap', '--data-dir', dataDir/,
  },
  {
    document: 'docs/operators.md',
    command:
      'PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY_FILE=.platform/keys/records.kek PLATFORM_RECORDS_KEY_ENCRYPTION_KEY=<new> m keys rewrap --data-dir .platform',
    testedBy: 'test/faults/at-rest-rewrap.test.ts',
    evidence:
      /spawnM\(\['keys', 'rewrap', '--data-dir', generatedDir\], \{\s*PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY_FILE/,
  },

  {
    document: 'docs/operators.md',
    command: 'm audit verify --data-dir .platform',
    testedBy: 'test/faults/at-rest.test.ts',
    evidence: /'audit', 'verify', '--data-dir', dataDir/,
  },
  {
    document: 'docs/operators.md',
    command: 'PLATFORM_API_KEY=<api_key>:<api_secret> m audit verify --url http://127.0.0.1:8000',
    testedBy: 'test/faults/at-rest.test.ts',
    evidence: /'audit', 'verify', '--url', server\.url\], \{\s*PLATFORM_API_KEY/,
  },
  {
    document: 'docs/operators.md',
    command: 'm audit verify --file audit-log-<date>.csv --head <seq>:<hash>',
    testedBy: 'test/cli/audit-verify-file.test.ts',
    evidence: /'audit', 'verify', '--file', whole, '--head', `\$\{head\.seq\}:\$\{head\.hash\}`\]/,
  },
  {
    document: 'docs/operators.md',
    command: 'm audit verify --data-dir .platform --head <seq>:<hash>',
    testedBy: 'test/cli/audit-verify-head.test.ts',
    evidence: /'audit', 'verify', '--data-dir', dataDir, '--head', head\]/,
  },
  {
    document: 'docs/operators.md',
    command:
      'PLATFORM_API_KEY=<api_key>:<api_secret> m audit verify --url http://127.0.0.1:8000 --head <seq>:<hash>',
    testedBy: 'test/cli/audit-verify-head.test.ts',
    evidence: /'audit', 'verify', '--url', server\.url, '--head', head\], \{\s*PLATFORM_API_KEY/,
  },
  {
    document: 'docs/operators.md',
    command:
      'PLATFORM_API_KEY=<api_key>:<api_secret> m audit verify --url http://127.0.0.1:8000 --head crm/<seq>:<hash>',
    testedBy: 'test/cli/audit-verify-head.test.ts',
    evidence: /'audit', 'verify', '--url', gateway\.url, '--head', head!\], \{\s*PLATFORM_API_KEY/,
  },

  // docs/performance.md
  ...[
    'shell',
    'lighthouse',
    'memory',
    'decrypt',
    'encrypted-create',
    'gateway',
    'durability',
    'pglite-tiering',
    'list-growth',
    'export-memory',
    'loadtest-whole',
  ].map((name) => ({
    document: 'docs/performance.md',
    command: `npm run bench ${name}`,
    notRun: BENCHMARK_NOT_RUN,
    check: benchExists(name),
  })),
  {
    document: 'docs/performance.md',
    command: 'BENCH_LIST_RECORDS=<n> npm run bench list',
    notRun: BENCHMARK_NOT_RUN,
    check: benchExists('list'),
  },

  // docs/sdk.md
  {
    document: 'docs/sdk.md',
    command: 'npx vitest run test/sdk test/mocks',
    notRun:
      'NOT RUN here: vitest inside vitest; every file under test/sdk and test/mocks already runs in the node ' +
      'project of `npm test`',
    check: () =>
      ['test/sdk', 'test/mocks'].find((dir) => !existsSync(join(ROOT, dir)))?.concat(' does not exist'),
  },
  {
    document: 'docs/sdk.md',
    command: 'npm run bench sdk',
    notRun: BENCHMARK_NOT_RUN,
    check: benchExists('sdk'),
  },
];
