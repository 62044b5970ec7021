import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../../backend/roots/context';
import { benchmarkCli } from '../../../src/benchmarks/cli';
import { EXIT } from '../../../src/benchmarks/exit-codes';
import { writeConfig } from '../helpers/runtime';

async function cli(args: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const code = await benchmarkCli(
    args,
    { out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } },
    env,
  );
  return { code, out, err };
}

describe('m benchmark hygiene', () => {
  it('--dry-run previews an example whose secrets are unset, showing them as placeholders', async () => {
    const path = join(ROOT_DIR, 'examples', 'load', 'stock-api-key.yaml');
    const { code, out, err } = await cli(['--config', path, '--dry-run']);
    expect(err).not.toContain('missing_env');
    expect(code).toBe(EXIT.pass);
    expect(out).toContain('key: <unset LOAD_API_KEY> <unset LOAD_API_SECRET>');
  });

  it('still refuses an unset variable outside a secret in a dry run, and any unset secret in a real run', async () => {
    const path = writeConfig(`target_url: "\${LOAD_TARGET}"
auth: { mode: bearer, token: "\${LOAD_TOKEN}" }
targets: [{ type: endpoint, name: e, method: GET, path: /x }]
`);
    const dry = await cli(['--config', path, '--dry-run']);
    expect(dry.code).toBe(EXIT.invalidConfig);
    expect(dry.err).toContain(':1:13  missing_env  target_url: environment variable LOAD_TARGET is not set');
    expect(dry.err).not.toContain('LOAD_TOKEN');
    const real = await cli(['--config', path], { LOAD_TARGET: 'http://127.0.0.1:1' });
    expect(real.code).toBe(EXIT.invalidConfig);
    expect(real.err).toContain('missing_env  auth.token: environment variable LOAD_TOKEN is not set');
  });

  it('warns before a run that DocType scenarios write into the target, and says nothing for reads', async () => {
    const writes = writeConfig(`target_url: http://127.0.0.1:1
auth: { mode: none }
targets:
  - { type: doctype, name: crm.Customer, mix: { read: 2, create: 1, delete: 1 } }
  - { type: doctype, name: stock.Item }
`);
    const { err } = await cli(['--config', writes, '--dry-run']);
    expect(err).toBe(
      'warning: this run writes records into http://127.0.0.1:1:\n' +
        '  - crm.Customer: crm.Customer create 25%, delete 25% of its requests\n' +
        '  records the run creates stay there; add --cleanup to delete them at the end\n',
    );
    const reads = writeConfig(`target_url: http://127.0.0.1:1
auth: { mode: none }
targets: [{ type: doctype, name: stock.Item }]
`);
    expect((await cli(['--config', reads, '--dry-run'])).err).toBe('');
  });
});
