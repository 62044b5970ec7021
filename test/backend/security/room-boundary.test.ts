import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SECURITY_DIR = resolve(import.meta.dirname, '../../../backend/security');
const AUTH_DIR = resolve(import.meta.dirname, '../../../backend/auth');

/** Every module specifier of a TypeScript source: `import ... from`, `export ... from` and `import()`. */
function specifiers(source: string): string[] {
  const found = source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm);
  return [...found].map((m) => m[1]!);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));
}

describe('the security room', () => {
  it('imports nothing from the auth room, types included (the two are joined by the composition root)', () => {
    const intoAuth = sources(SECURITY_DIR).flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((spec) => spec.startsWith('.'))
        .filter((spec) => !relative(AUTH_DIR, resolve(join(file, '..'), spec)).startsWith('..'))
        .map((spec) => `${relative(SECURITY_DIR, file)} -> ${spec}`),
    );
    expect(sources(SECURITY_DIR).length).toBeGreaterThan(0);
    expect(intoAuth).toEqual([]);
  });
});
