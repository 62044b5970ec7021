/**
 * The commands README.md and docs/**\/*.md tell a reader to run keep working: each is listed in
 * ./documented-commands.ts with how it is verified, and verified here (run against a temporary folder and
 * data directory and one shared `m serve` on a free port, or found in the test file that runs it). A
 * documented command missing from the list fails, and so does an entry no document mentions any more.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DOCUMENTED_COMMANDS, type DocumentedCommandEntry } from './documented-commands';
import { documentedCommands } from './extract-commands';
import { ROOT, Sandbox, tail } from './sandbox';

const documented = documentedCommands(ROOT);
const key = (c: { document: string; command: string }) => `${c.document}: ${c.command}`;
const listed = new Map(DOCUMENTED_COMMANDS.map((entry) => [key(entry), entry]));

describe('the list of documented commands', () => {
  it('finds commands in the documents', () => {
    // A broken extractor would find nothing and make every other check here pass vacuously.
    expect(documented.map((c) => c.document)).toEqual(
      expect.arrayContaining(['README.md', 'docs/operators.md']),
    );
  });

  it('says how every documented command is verified', () => {
    const missing = documented
      .filter((c) => !listed.has(key(c)))
      .map((c) => `${c.document}:${c.line}  ${c.command}`);
    expect(
      missing,
      'documented commands not in test/docs/documented-commands.ts (add each with how it is verified)',
    ).toEqual([]);
  });

  it('holds no command that no document mentions any more', () => {
    const mentioned = new Set(documented.map(key));
    expect(
      DOCUMENTED_COMMANDS.filter((entry) => !mentioned.has(key(entry))).map(key),
      'entries of test/docs/documented-commands.ts that no document mentions (remove them)',
    ).toEqual([]);
  });

  it('lists each document and command once', () => {
    expect(DOCUMENTED_COMMANDS.length).toBe(listed.size);
  });
});

type Entry<K extends string> = Extract<DocumentedCommandEntry, Record<K, unknown>>;
const byOtherTests = DOCUMENTED_COMMANDS.filter((e): e is Entry<'testedBy'> => 'testedBy' in e);
const notRun = DOCUMENTED_COMMANDS.filter((e): e is Entry<'notRun'> => 'notRun' in e);
const runHere = DOCUMENTED_COMMANDS.filter((e): e is Entry<'run'> => 'run' in e);

describe('documented commands run by other test files', () => {
  it.each(byOtherTests.map((e) => [key(e), e] as const))('%s', (_, entry) => {
    const file = join(ROOT, entry.testedBy);
    expect(existsSync(file), `${entry.testedBy} (named for "${entry.command}") does not exist`).toBe(true);
    expect(
      entry.evidence.test(readFileSync(file, 'utf8')),
      `${entry.testedBy} no longer runs "${entry.command}" (${entry.document}): ${entry.evidence} not found`,
    ).toBe(true);
  });
});

describe('documented commands not run inside npm test', () => {
  it('says why, loudly', () => {
    for (const entry of notRun) {
      console.warn(`${entry.document}: \`${entry.command}\`\n    ${entry.notRun}`);
      expect(entry.notRun).toMatch(/^NOT RUN/);
    }
    const broken = notRun.flatMap((entry) => entry.check?.() ?? []);
    expect(broken, 'what a command not run here refers to is gone').toEqual([]);
  });
});

describe('documented commands run here', () => {
  const sandbox = new Sandbox();
  afterAll(() => sandbox.dispose());

  // One after the other: they share the server and run in parallel inside each command anyway.
  it.each(runHere.map((e) => [key(e), e] as const))('%s', async (_, entry) => {
    const run = await entry.run(sandbox, entry.command);
    const failure =
      run.status !== 0
        ? `exited with status ${run.status}`
        : run.problem
          ? `exited 0 but ${run.problem}`
          : undefined;
    expect(
      failure,
      `"${entry.command}" (${entry.document}) ${failure}\n--- stderr (tail)\n${tail(run.stderr)}\n--- stdout (tail)\n${tail(run.stdout)}`,
    ).toBeUndefined();
  });

  it('the shared m serve stops cleanly on SIGTERM', async () => {
    expect(await sandbox.stopServer()).toBe(0);
  });
});
