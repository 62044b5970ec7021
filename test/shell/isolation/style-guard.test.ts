import { afterEach, describe, expect, it } from 'vitest';
import { scopeCss, splitTopLevelRules } from '../../../src/shell/isolation/scope-css';
import {
  SCOPED_STYLE_ATTRIBUTE,
  STYLE_OWNER_ATTRIBUTE,
  StyleGuard,
} from '../../../src/shell/isolation/style-guard';

const HOSTILE = `/* a remote's global stylesheet */
@import url("https://fonts.test/x.css");
:root { --desk-accent: lime; }
html, body { font-family: monospace; }
h1 { color: magenta; }
a, button { color: lime !important; }
* { outline: 1px solid red; }
@media (min-width: 10px) { h1 { font-size: 3em; } }
@keyframes spin { from { transform: rotate(0) } to { transform: rotate(1turn) } }
.note::after { content: "}"; }
/*# sourceMappingURL=x.css.map */`;

/** Lets the guard's MutationObserver run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  document.head.innerHTML = '';
  document.body.innerHTML = '';
});

describe('scopeCss', () => {
  it('splits rules at top level, past braces in strings and comments', () => {
    expect(splitTopLevelRules('a{b:c} .x::after{content:"}"} /* } */ @media x{h1{y:z}}')).toEqual([
      'a{b:c}',
      '.x::after{content:"}"}',
      '@media x{h1{y:z}}',
    ]);
  });

  it('confines every rule to the service’s roots, points page-root rules at the remote’s root, keeps global names global', () => {
    const out = scopeCss(HOSTILE, 'gadgets');
    const [global, scoped] = out.split('@scope ([data-desk-remote-root="gadgets"]) {');
    expect(global).toContain('@keyframes spin');
    expect(global).not.toMatch(/h1|@import|:root/);
    expect(scoped).toContain(':scope { --desk-accent: lime; }');
    expect(scoped).toContain(':scope, :scope { font-family: monospace; }');
    expect(scoped).toContain('h1 { color: magenta; }');
    expect(scoped).toContain('a, button { color: lime !important; }');
    expect(scoped).toContain('@media (min-width: 10px) { h1 { font-size: 3em; } }');
    expect(scoped).toContain('.note::after { content: "}"; }');
    expect(out).not.toContain('@import');
    expect(out.trim().endsWith('}')).toBe(true);
  });
});

describe('StyleGuard', () => {
  it('switches off a style a remote marked as its own and adds a copy confined to its roots; a hot update and a removal follow', async () => {
    const guard = new StyleGuard({ serviceOfUrl: () => undefined });
    guard.start();
    const style = document.createElement('style');
    style.setAttribute(STYLE_OWNER_ATTRIBUTE, 'gadgets');
    style.textContent = 'h1 { color: magenta; }';
    document.head.appendChild(style);
    await settle();
    await guard.settled();

    expect(style.getAttribute('media')).toBe('not all');
    const [copy] = guard.copiesOf('gadgets');
    expect(copy?.getAttribute(SCOPED_STYLE_ATTRIBUTE)).toBe('gadgets');
    expect(copy?.textContent).toContain('@scope ([data-desk-remote-root="gadgets"])');
    expect(copy?.textContent).toContain('h1 { color: magenta; }');

    style.textContent = 'h1 { color: teal; }';
    await settle();
    await guard.settled();
    expect(guard.copiesOf('gadgets')[0]?.textContent).toContain('h1 { color: teal; }');

    style.remove();
    await settle();
    expect(guard.copiesOf('gadgets')).toEqual([]);
    expect(document.head.querySelector(`[${SCOPED_STYLE_ATTRIBUTE}]`)).toBeNull();
  });

  it('confines a style rendered inside a remote root to that root, and leaves the Desk’s own styles alone', async () => {
    const guard = new StyleGuard({ serviceOfUrl: () => undefined });
    guard.start();
    const desk = document.createElement('style');
    desk.textContent = 'a { color: blue; }';
    document.head.appendChild(desk);
    const root = document.createElement('div');
    root.setAttribute('data-desk-remote-root', 'crm');
    root.innerHTML = '<style>button { color: lime; }</style><button>Save</button>';
    document.body.appendChild(root);
    await settle();

    expect(desk.hasAttribute('media')).toBe(false);
    expect(guard.copiesOf('crm')).toHaveLength(1);
    expect(root.querySelector('style')?.getAttribute('media')).toBe('not all');
  });

  it('tags a style inserted by code from a remote’s files, before it is in the page', () => {
    const stack = [
      'Error',
      '    at StyleGuard.#tag (http://127.0.0.1:8000/desk/assets/shell/main.js:1:100)',
      '    at insertStyleElement (http://127.0.0.1:8000/desk/assets/gadgets/src_views_tsx.js:12:5)',
      '    at http://127.0.0.1:8000/desk/assets/gadgets/src_views_tsx.js:40:3',
    ].join('\n');
    const guard = new StyleGuard(
      {
        serviceOfUrl: (url) =>
          url.startsWith('http://127.0.0.1:8000/desk/assets/gadgets/') ? 'gadgets' : undefined,
      },
      document,
      () => stack,
    );
    guard.start();
    const style = document.createElement('style');
    document.head.appendChild(style);
    const plain = document.createElement('link');
    document.head.append(plain);
    expect(style.getAttribute(STYLE_OWNER_ATTRIBUTE)).toBe('gadgets');
    // Only stylesheets are tagged.
    expect(plain.hasAttribute(STYLE_OWNER_ATTRIBUTE)).toBe(false);
    expect(style.getAttribute('media')).toBe('not all');
  });
});
