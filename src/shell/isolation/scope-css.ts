/**
 * Confines a remote's stylesheet to the elements it renders (docs/mfe-teams.md#styles-of-a-remote): every
 * rule goes inside `@scope ([data-desk-remote-root="<service>"])`, so `h1`, `a`, `button` or `*` rules style
 * only the remote's own views and widgets, never the Desk or another remote. Rules written for the page's
 * root (`:root`, `html`, `body`) apply to the remote's root instead (`:scope`), so a remote's own custom
 * properties and base font still reach it. Names that are global by nature (`@font-face`, `@keyframes`,
 * `@property`) stay global.
 */

import { REMOTE_ROOT_ATTRIBUTE } from './remote-root';

/** The CSS selector of `service`'s roots. */
export function remoteRootSelector(service: string): string {
  return `[${REMOTE_ROOT_ATTRIBUTE}="${service.replace(/["\\]/g, '\\$&')}"]`;
}

/** At-rules whose names are global: scoping them would make them invalid. */
const GLOBAL_AT_RULE =
  /^@(font-face|keyframes|-webkit-keyframes|property|font-feature-values|counter-style)\b/i;
/** Statements that must come first or cannot be scoped (their content is dropped). */
const DROPPED_AT_RULE = /^@(import|charset|namespace)\b/i;

/** A selector written for the page's root, pointed at the remote's root instead. */
function rootToScope(selector: string): string {
  return selector
    .split(',')
    .map((part) => part.trim().replace(/^(?::root|html|body)(?=$|[\s>+~.:[#])/i, ':scope'))
    .join(', ');
}

/**
 * Splits `css` into top-level rules: at each `;` or balanced `}` outside strings and comments. Good enough
 * for stylesheets a bundler emits; anything it cannot balance ends up in the last chunk and stays scoped.
 */
export function splitTopLevelRules(css: string): string[] {
  const rules: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < css.length; i++) {
    const c = css[i];
    if (c === '/' && css[i + 1] === '*') {
      const end = css.indexOf('*/', i + 2);
      i = end < 0 ? css.length : end + 1;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < css.length && css[j] !== c) j += css[j] === '\\' ? 2 : 1;
      i = j;
    } else if (c === '{') {
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth === 0) {
        rules.push(css.slice(start, i + 1).trim());
        start = i + 1;
      }
    } else if (c === ';' && depth === 0) {
      rules.push(css.slice(start, i + 1).trim());
      start = i + 1;
    }
  }
  const rest = css.slice(start).trim();
  if (rest) rules.push(rest);
  return rules.map(withoutLeadingComments).filter((rule) => rule && !/^\/\*[\s\S]*\*\/$/.test(rule));
}

/** Strips the comments before a rule's prelude, so its kind can be read. */
function withoutLeadingComments(rule: string): string {
  return rule.replace(/^(\s*\/\*[\s\S]*?\*\/)+/, '').trimStart();
}

/** `css` confined to `service`'s roots (see the module comment). */
export function scopeCss(css: string, service: string): string {
  const global: string[] = [];
  const scoped: string[] = [];
  for (const rule of splitTopLevelRules(css)) {
    const text = rule;
    if (DROPPED_AT_RULE.test(text)) continue;
    if (GLOBAL_AT_RULE.test(text)) {
      global.push(text);
      continue;
    }
    const brace = text.indexOf('{');
    if (!text.startsWith('@') && brace > 0) {
      scoped.push(`${rootToScope(text.slice(0, brace))} ${text.slice(brace)}`);
    } else {
      scoped.push(text);
    }
  }
  return `${global.join('\n')}\n@scope (${remoteRootSelector(service)}) {\n${scoped.join('\n')}\n}\n`;
}
