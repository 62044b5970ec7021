import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The platform's app API (`src/app`), as an app folder's `app.ts` imports it in these tests. */
const APP_API = JSON.stringify(join(import.meta.dirname, '..', '..', 'src', 'app', 'index.ts'));

/**
 * A temporary app folder whose `app.ts` is `source`, after a line importing `names` from the platform's app
 * API (e.g. `defineApp, defineDocType, z`); `prefix` names the folder. The caller removes it.
 */
export function appFolder(prefix: string, names: string, source: string): string {
  const dir = mkdtempSync(join(tmpdir(), `desk-app-${prefix}-`));
  writeFileSync(join(dir, 'app.ts'), `import { ${names} } from ${APP_API};\n${source}`);
  return dir;
}
