import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { INTEGRITY_PATTERN, remoteEntryIntegrity } from '../../../backend/apps/remote-integrity';
import { parseManifest } from '../../../backend/gateway/manifests/manifest-schema';
import { createMonolithDirectory } from '../../../backend/gateway/monolith-directory';
import { FAKE_REMOTE_ENTRY, makeAppsFixture } from '../../helpers/test-app';

describe('remote entry integrity in manifests', () => {
  const appsDir = makeAppsFixture({ crm: true, stock: false });
  afterAll(() => rmSync(appsDir, { recursive: true, force: true }));
  const apps = [
    { name: 'crm', doctypes: [{ name: 'crm.Customer' }] },
    { name: 'stock', doctypes: [{ name: 'stock.Item' }] },
  ];

  it("publishes the entry's sha384 and a new rev when the entry changes", () => {
    let clock = 1_000;
    const directory = createMonolithDirectory({
      apps,
      appsDir,
      publicUrl: () => 'http://desk.test',
      now: () => clock,
    });
    const first = directory.get('crm')!;
    expect(first.integrity).toBe(`sha384-${createHash('sha384').update(FAKE_REMOTE_ENTRY).digest('base64')}`);
    expect(first.integrity).toMatch(INTEGRITY_PATTERN);
    expect(directory.get('stock')!.integrity).toBeUndefined();

    writeFileSync(join(appsDir, 'crm', 'static', 'mfe', 'remoteEntry.js'), 'window.crm = 2;\n');
    clock += 5_000;
    const second = directory.get('crm')!;
    expect(second.integrity).toBe(
      remoteEntryIntegrity(join(appsDir, 'crm', 'static', 'mfe', 'remoteEntry.js')),
    );
    expect(second.integrity).not.toBe(first.integrity);
    expect(second.rev).toBeGreaterThan(first.rev);
  });

  it('keeps integrity through the bus schema and refuses a malformed value', () => {
    const manifest = {
      service: 'crm',
      rev: 1,
      url: 'http://s/desk/assets/crm/remoteEntry.js',
      apiUrl: 'http://s/api',
      metaUrl: 'http://s/api/meta/crm',
      doctypes: ['crm.Customer'],
      integrity: remoteEntryIntegrity(join(appsDir, 'crm', 'static', 'mfe', 'remoteEntry.js')),
    };
    expect(parseManifest(manifest)?.integrity).toBe(manifest.integrity);
    expect(parseManifest({ ...manifest, integrity: 'md5-abc' })).toBeNull();
  });
});
