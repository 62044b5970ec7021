/** URL prefix the shell's own build is served under. */
export const SHELL_ASSET_PREFIX = '/desk/assets/shell/';

const ATTRIBUTE = /(<[a-zA-Z][^>]*?\s(?:src|href)\s*=\s*)(["'])(.*?)\2/gs;
/** A URL with a scheme (`http:`, `data:`, `mailto:`, ...), protocol-relative, absolute-path, or a fragment. */
const NOT_RELATIVE = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/|#|\?)/;

/**
 * Rewrites relative `src`/`href` URLs of the shell page to `/desk/assets/shell/<path>`
 * (docs/http-api.md#hybrid-asset-resolution, the rewriting step), so the page works at `/desk/` and at any
 * deep link below it. Absolute, `data:`, `http(s):`, protocol-relative, query-only and `#` URLs are left
 * alone; empty ones too.
 */
export function rewriteAssetUrls(html: string): string {
  return html.replace(ATTRIBUTE, (whole, head: string, quote: string, url: string) => {
    const trimmed = url.trim();
    if (trimmed === '' || NOT_RELATIVE.test(trimmed)) return whole;
    return `${head}${quote}${SHELL_ASSET_PREFIX}${trimmed.replace(/^(?:\.\/)+/, '')}${quote}`;
  });
}

/**
 * Inserts `markup` before the first `<script` of the page (so it runs before every bundle script), else
 * before `</head>`, else before `</body>`, else at the end.
 */
export function injectBeforeFirstScript(html: string, markup: string): string {
  for (const pattern of [/<script\b/i, /<\/head>/i, /<\/body>/i]) {
    const match = pattern.exec(html);
    if (match) return html.slice(0, match.index) + markup + html.slice(match.index);
  }
  return html + markup;
}
