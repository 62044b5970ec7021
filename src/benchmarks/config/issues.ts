import { type Document, isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

/**
 * One problem of a load-test file, with its YAML position (1-based line and column). Validation collects
 * every issue before reporting, as k6 does, so an operator fixes a file in one pass.
 */
export interface ConfigIssue {
  /** Stable machine code: yaml_syntax, invalid_type, invalid_value, unknown_key, missing_key,
   * inline_secret, missing_env, unknown_template, duplicate_scenario, factory_not_found. */
  code: string;
  /** Dotted path of the offending value, e.g. `targets[1].auth.password`. */
  path: string;
  line: number;
  column: number;
  message: string;
}

/** Key or index segments of a value's location. */
export type ConfigPath = ReadonlyArray<string | number>;

/** Formats a path as `targets[1].auth.password`. */
function formatPath(path: ConfigPath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out || '(root)';
}

/** A parsed YAML source that can point at the position of any path in it. */
export class YamlSource {
  readonly doc: Document.Parsed;
  private readonly lines = new LineCounter();

  constructor(text: string) {
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
  }

  /** Syntax errors of the document (duplicate keys included), each with its position. */
  syntaxIssues(): ConfigIssue[] {
    return this.doc.errors.map((e) => {
      const pos = this.lines.linePos(e.pos[0]);
      return {
        code: 'yaml_syntax',
        path: '(document)',
        line: pos.line,
        column: pos.col,
        message: e.message.split('\n')[0] ?? e.message,
      };
    });
  }

  /** The document as plain JavaScript values. */
  toJS(): unknown {
    return this.doc.toJS({ maxAliasCount: 100 });
  }

  /**
   * Position of `path`: its value node, or with `key` its key node. For a missing path, the deepest
   * existing ancestor (so "missing key" errors point at the object that lacks it).
   */
  position(path: ConfigPath, key = false): { line: number; column: number } {
    let node: unknown = this.doc.contents;
    let offset = rangeStart(node) ?? 0;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find(
          (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg),
        );
        if (!pair) break;
        const keyStart = rangeStart(pair.key);
        if (last && key && keyStart !== undefined) {
          offset = keyStart;
          break;
        }
        node = pair.value;
        offset = rangeStart(node) ?? keyStart ?? offset;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg];
        if (item === undefined) break;
        node = item;
        offset = rangeStart(node) ?? offset;
      } else {
        break;
      }
    }
    const pos = this.lines.linePos(offset);
    return { line: pos.line, column: pos.col };
  }

  /** Builds an issue located at `path`. */
  issue(code: string, path: ConfigPath, message: string, key = false): ConfigIssue {
    return { code, path: formatPath(path), ...this.position(path, key), message };
  }
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return Array.isArray(range) ? range[0] : undefined;
}

/** Sorts issues by position so the report reads top to bottom. */
export function sortIssues(issues: ConfigIssue[]): ConfigIssue[] {
  return [...issues].sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Renders issues as `file:line:column  code  path: message` lines. */
export function formatIssues(file: string, issues: ConfigIssue[]): string {
  return sortIssues(issues)
    .map((i) => `${file}:${i.line}:${i.column}  ${i.code}  ${i.path}: ${i.message}`)
    .join('\n');
}
