import { describe, expect, it } from 'vitest';
import { serializeForHtml } from '../../../backend/desk/platform-config';
import { injectBeforeFirstScript, rewriteAssetUrls } from '../../../backend/desk/shell-html';

describe('rewriteAssetUrls', () => {
  it('prefixes relative src and href, and leaves every other URL alone', () => {
    const html = [
      '<script src="main.js"></script>',
      "<link href='./styles/app.css' rel=stylesheet>",
      '<img src="/favicon.png">',
      '<a href="#top">',
      '<link rel="icon" href="data:,">',
      '<script src="https://cdn.example/x.js"></script>',
      '<script src="//cdn.example/y.js"></script>',
      '<a href="mailto:a@b.c">',
      '<img src="">',
    ].join('');
    const out = rewriteAssetUrls(html);
    expect(out).toContain('<script src="/desk/assets/shell/main.js">');
    expect(out).toContain("href='/desk/assets/shell/styles/app.css'");
    for (const kept of [
      'src="/favicon.png"',
      'href="#top"',
      'href="data:,"',
      'https://cdn.example/x.js',
      'src="//cdn.example/y.js"',
      'mailto:a@b.c',
      'src=""',
    ]) {
      expect(out).toContain(kept);
    }
  });

  it('does not touch text that only looks like an attribute', () => {
    const html = '<p>set src="x.js" in the config</p>';
    expect(rewriteAssetUrls(html)).toBe(html);
  });
});

describe('injectBeforeFirstScript', () => {
  it('goes before the first script, else before </head>, else before </body>', () => {
    expect(injectBeforeFirstScript('<head><SCRIPT src=a></SCRIPT></head>', 'X')).toBe(
      '<head>X<SCRIPT src=a></SCRIPT></head>',
    );
    expect(injectBeforeFirstScript('<head></head><body></body>', 'X')).toBe('<head>X</head><body></body>');
    expect(injectBeforeFirstScript('<body></body>', 'X')).toBe('<body>X</body>');
    expect(injectBeforeFirstScript('plain', 'X')).toBe('plainX');
  });
});

describe('serializeForHtml', () => {
  it('escapes <, >, &, U+2028 and U+2029 and round-trips through JSON.parse', () => {
    const value = { a: '</script><!-- & -->', b: 'x\u2028y\u2029z' };
    const text = serializeForHtml(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});
