import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
type Loader = (this: unknown, source: string) => string;
const hotComponents = require('../../src/webpack/hot-components-loader.cjs') as Loader;
const hotViews = require('../../src/webpack/hot-views-loader.cjs') as Loader;

const context = (resourcePath: string) => ({
  getOptions: () => ({ service: 'notes' }),
  resourcePath,
  rootContext: '/app',
});

describe('hot update loaders', () => {
  it('swaps every top-level PascalCase function component for a stable proxy', () => {
    const source = [
      'export function NoteForm(props: P) { return null; }',
      'function NoteFormBody<T>(props: T) { return null; }',
      'export default function Widget() { return null; }',
      'function helper() {}',
      'const Arrow = () => null;',
    ].join('\n');
    const out = hotComponents.call(context('/app/ui/NoteForm.tsx'), source);
    expect(out.startsWith(source)).toBe(true);
    expect(out).toContain('NoteForm = __deskHot("NoteForm", NoteForm);');
    expect(out).toContain('NoteFormBody = __deskHot("NoteFormBody", NoteFormBody);');
    expect(out).toContain('Widget = __deskHot("Widget", Widget);');
    expect(out).not.toContain('__deskHot("helper"');
    expect(out).not.toContain('__deskHot("Arrow"');
    expect(out).toContain('"notes:/ui/NoteForm.tsx:" + name');
  });

  it('makes a component module accept its own updates and tell the Desk, so a lazy view keeps its state', () => {
    const out = hotComponents.call(
      context('/app/ui/NoteForm.tsx'),
      'export function NoteForm() { return null; }',
    );
    expect(out).toContain('import.meta.webpackHot.accept();');
    expect(out).toContain(`new CustomEvent('desk:remote-updated', { detail: { service: "notes" } })`);
  });

  it('leaves a module without components alone, and makes the views module announce updates', () => {
    expect(hotComponents.call(context('/app/ui/util.tsx'), 'export const x = 1;\n')).toBe(
      'export const x = 1;\n',
    );
    const views = hotViews.call(context('/app/ui/views.ts'), 'export default {};\n');
    expect(views).toContain('import.meta.webpackHot.accept();');
    expect(views).toContain(`new CustomEvent('desk:remote-updated', { detail: { service: "notes" } })`);
  });
});
