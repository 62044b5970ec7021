import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crmApp } from '../../../backend/apps/crm/app';
import { stockApp } from '../../../backend/apps/stock/app';
import { createMonolithDirectory } from '../../../backend/gateway/monolith-directory';
import { makeAppsFixture } from '../../helpers/test-app';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fixture(apps: Record<string, boolean>): string {
  const dir = makeAppsFixture(apps);
  dirs.push(dir);
  return dir;
}

describe('createMonolithDirectory', () => {
  it('gives an app with static/mfe/remoteEntry.js a remote url and every app its API URLs', () => {
    const directory = createMonolithDirectory({
      apps: [crmApp, stockApp],
      appsDir: fixture({ crm: true, stock: false }),
      publicUrl: () => 'http://desk.example:8000',
    });
    expect(directory.get('crm')).toMatchObject({
      url: 'http://desk.example:8000/desk/assets/crm/remoteEntry.js',
      apiUrl: 'http://desk.example:8000/api',
      metaUrl: 'http://desk.example:8000/api/meta/crm',
      openapiUrl: 'http://desk.example:8000/api/openapi.json',
      doctypes: ['crm.Customer', 'crm.Lead'],
    });
    expect(directory.get('stock')?.url).toBeNull();
    expect(directory.ownerOf('stock.Warehouse')).toBe('stock');
    expect(directory.ownerOf('crm.Nope')).toBeUndefined();
    expect(directory.list().map((m) => m.service)).toEqual(['crm', 'stock']);
  });

  it('keeps rev while nothing changes and raises it when a remote appears', () => {
    const appsDir = fixture({ crm: true, stock: false });
    let clock = 1_000;
    const directory = createMonolithDirectory({
      apps: [crmApp, stockApp],
      appsDir,
      publicUrl: () => 'http://h',
      now: () => clock,
    });
    const stockRev = directory.get('stock')!.rev;
    const crmRev = directory.get('crm')!.rev;
    expect(directory.refresh()).toBe(false);
    expect(directory.get('stock')!.rev).toBe(stockRev);

    const seen: string[][] = [];
    directory.subscribe((list) => seen.push(list.map((m) => `${m.service}:${m.url ? 'ui' : 'data'}`)));
    mkdirSync(join(appsDir, 'stock', 'static', 'mfe'), { recursive: true });
    writeFileSync(join(appsDir, 'stock', 'static', 'mfe', 'remoteEntry.js'), '');
    expect(directory.get('stock')!.url).toBeNull(); // within the rescan interval: the cached scan
    clock += 5_000;
    expect(directory.get('stock')!.url).toBe('http://h/desk/assets/stock/remoteEntry.js');
    expect(directory.get('stock')!.rev).toBeGreaterThan(stockRev);
    expect(directory.get('crm')!.rev).toBe(crmRev);
    expect(seen).toEqual([['crm:ui', 'stock:ui']]);
  });
});
