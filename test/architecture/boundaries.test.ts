/**
 * The rooms of the tree and which way imports may point between them (docs/architecture.md): the browser SDK
 * and shell never reach into the backend, the sample apps' UI remotes use the package's public entries as a
 * team's app would, no import chain comes back to where it started, and code that runs in a browser (or
 * anywhere) never imports a Node built-in. The type check enforces the same rooms per environment
 * (tsconfig.<room>.json); this test names the offending file and import.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImportGraph, findCycles, type ImportEdge, type ImportGraph } from './import-graph';

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const treeFolders = [
  'src',
  'backend',
  'mocks',
  'test',
  'bench',
  'scripts',
  'bin',
  'examples',
  'webpack.config.ts',
  'vitest.config.ts',
];

// Code that runs in a browser (the SDK, the shell, the remote runtime, the sample apps' UI remotes, the MSW
// mocks) or in any runtime (the wire protocol, the contract, the app-authoring entry): the rooms whose
// tsconfig has no Node types.
const nodeFreeRooms = [
  /^src\/(sdk|shell|remote|protocol|contract|app)\//,
  /^backend\/apps\/[^/]+\/ui\//,
  /^mocks\//,
];

// The package entries a team's app imports (package.json `exports`); a sample app's UI remote uses the same.
const publicEntries = /^src\/(app|remote|webpack|protocol|contract)\/index\.tsx?$/;

const nodeBuiltins = new Set(builtinModules);

function describeEdge(edge: ImportEdge): string {
  const target = edge.target && edge.target !== edge.specifier ? ` (${edge.target})` : '';
  return `${edge.from} imports '${edge.specifier}'${target}`;
}

function edgesOf(graph: ImportGraph): ImportEdge[] {
  return graph.files.flatMap((file) => graph.imports.get(file) ?? []);
}

/** Files under src/ that import the backend; only the `m` command (src/cli) composes the server. */
function sourceImportsOfBackend(graph: ImportGraph): string[] {
  return edgesOf(graph)
    .filter((edge) => edge.from.startsWith('src/') && !edge.from.startsWith('src/cli/'))
    .filter((edge) => edge.target?.startsWith('backend/'))
    .map(describeEdge);
}

/** UI remote files that import the backend outside their own ui/ folder, or src/ outside a public entry. */
function uiRemoteImportsOutsideTheirEntries(graph: ImportGraph): string[] {
  return edgesOf(graph)
    .filter((edge) => {
      const uiFolder = /^backend\/apps\/[^/]+\/ui\//.exec(edge.from)?.[0];
      if (!uiFolder || !edge.target) return false;
      if (edge.target.startsWith('backend/')) return !edge.target.startsWith(uiFolder);
      return edge.target.startsWith('src/') && !publicEntries.test(edge.target);
    })
    .map(describeEdge);
}

/** Node built-in modules imported from a room whose code runs in a browser or anywhere. */
function nodeBuiltinsInNodeFreeRooms(graph: ImportGraph): string[] {
  return edgesOf(graph)
    .filter((edge) => nodeFreeRooms.some((room) => room.test(edge.from)))
    .filter((edge) => edge.specifier.startsWith('node:') || nodeBuiltins.has(edge.specifier.split('/')[0]!))
    .map(describeEdge);
}

function printCycles(graph: ImportGraph): string[] {
  return findCycles(graph).map((cycle) => cycle.join(' -> '));
}

describe('room boundaries of the tree', () => {
  const graph = buildImportGraph(repositoryRoot, treeFolders);

  it('reads the whole tree', () => {
    expect(graph.files).toContain('src/sdk/index.ts');
    expect(graph.files).toContain('backend/server.ts');
    expect(graph.files).toContain('bin/m.js');
  });

  it('keeps src/ out of the backend, except the m command', () => {
    expect(sourceImportsOfBackend(graph)).toEqual([]);
  });

  it("lets a sample app's UI remote import only its own ui/ folder and the package's public entries", () => {
    expect(uiRemoteImportsOutsideTheirEntries(graph)).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(printCycles(graph)).toEqual([]);
  });

  it('keeps Node built-ins out of browser and environment-agnostic code', () => {
    expect(nodeBuiltinsInNodeFreeRooms(graph)).toEqual([]);
  });
});

describe('the boundary rules on a fixture tree', () => {
  let fixtureRoot: string | undefined;
  afterEach(() => {
    if (fixtureRoot) rmSync(fixtureRoot, { recursive: true, force: true });
    fixtureRoot = undefined;
  });

  function writeTree(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'boundaries-'));
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    }
    return root;
  }

  it('names each cycle and each forbidden import', () => {
    fixtureRoot = writeTree({
      'src/sdk/client.ts': "import type { Store } from './store/index.js';\nexport const client = 1;\n",
      'src/sdk/store/index.ts': "export { client } from '../client';\nexport type Store = number;\n",
      'src/sdk/files.ts': "import { readFileSync } from 'node:fs';\nimport { join } from 'path';\n",
      'src/shell/boot.tsx': "const server = () => import('../../backend/server');\nexport { server };\n",
      'src/cli/serve.ts': "import { start } from '../../backend/server';\nexport { start };\n",
      'backend/server.ts': 'export const start = () => undefined;\n',
      'backend/apps/crm/ui/Form.tsx': [
        "import { defineRemote } from '../../../../src/remote';",
        "import { route } from '../../../../src/remote/route';",
        "import { crmApp } from '../app';",
        "import { Field } from './Field';",
        'export const Form = () => <p>Don\'t import "../app" from here</p>;',
        '',
      ].join('\n'),
      'backend/apps/crm/ui/Field.tsx': 'export const Field = 1;\n',
      'backend/apps/crm/app.ts': 'export const crmApp = 1;\n',
      'src/remote/index.ts': "export { route } from './route';\nexport const defineRemote = 1;\n",
      'src/remote/route.ts': 'export const route = 1;\n',
    });
    const fixture = buildImportGraph(fixtureRoot, ['src', 'backend']);

    expect(printCycles(fixture)).toEqual([
      'src/sdk/client.ts -> src/sdk/store/index.ts -> src/sdk/client.ts',
    ]);
    expect(sourceImportsOfBackend(fixture)).toEqual([
      "src/shell/boot.tsx imports '../../backend/server' (backend/server.ts)",
    ]);
    expect(uiRemoteImportsOutsideTheirEntries(fixture)).toEqual([
      "backend/apps/crm/ui/Form.tsx imports '../../../../src/remote/route' (src/remote/route.ts)",
      "backend/apps/crm/ui/Form.tsx imports '../app' (backend/apps/crm/app.ts)",
    ]);
    expect(nodeBuiltinsInNodeFreeRooms(fixture)).toEqual([
      "src/sdk/files.ts imports 'node:fs'",
      "src/sdk/files.ts imports 'path'",
    ]);
  });
});
