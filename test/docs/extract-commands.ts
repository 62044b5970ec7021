import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A command a document tells its reader to run. */
export interface DocumentedCommand {
  /** The command, normalised by {@link normaliseCommand}. */
  command: string;
  /** The document, relative to the repository root (`docs/operators.md`). */
  document: string;
  /** 1-based line of its first mention in the document. */
  line: number;
}

/** Fenced code block languages whose lines are commands to run. */
const SHELL_FENCES = new Set(['sh', 'bash', 'shell', 'console']);

/** Inline code in a command table counts when it starts with one of these (after `NAME=value` settings). */
const COMMAND_PREFIX = /^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:npm|npx|m|node)\s/;

/** The header of a command table's first column. */
const COMMAND_COLUMN = /^command$/i;

/**
 * One spelling per command: whitespace collapsed, `npx m` written `m` (the same command, run through the
 * package's bin either way), and a table's escaped `\|` unescaped.
 */
export function normaliseCommand(text: string): string {
  return text
    .replace(/\\\|/g, '|')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/(^|\s|&& )npx m /g, '$1m ');
}

/** Strips a shell comment (`# ...` after whitespace or at the start), outside quotes. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/**
 * The commands of one shell block: continuation lines joined, comments and blank lines dropped, a
 * `console` block's `$ ` prompt removed (its other lines are output), and `a && b` split into the commands
 * a reader runs one after the other.
 */
function blockCommands(lines: string[], language: string): { text: string; offset: number }[] {
  const commands: { text: string; offset: number }[] = [];
  let pending = '';
  let start = 0;
  lines.forEach((raw, offset) => {
    let line = raw;
    if (language === 'console') {
      if (!pending && !line.startsWith('$ ')) return;
      if (!pending) line = line.slice(2);
    }
    if (!pending) start = offset;
    const continued = /\\\s*$/.test(line);
    pending += ` ${continued ? line.replace(/\\\s*$/, '') : line}`;
    if (continued) return;
    const text = stripComment(pending).trim();
    pending = '';
    for (const part of text.split(/\s&&\s/)) if (part.trim()) commands.push({ text: part, offset: start });
  });
  return commands;
}

/** The cells of a Markdown table row (`\|` inside a cell does not split it). */
function tableCells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/**
 * Every command one Markdown document tells its reader to run: each command of its `sh`, `bash`, `shell`
 * and `console` blocks, and the inline code of a command table's first column (a table whose first header
 * is "Command") that starts with `npm`, `npx`, `m` or `node`.
 */
export function commandsOfMarkdown(markdown: string, document: string): DocumentedCommand[] {
  const lines = markdown.split('\n');
  const found: DocumentedCommand[] = [];
  const add = (text: string, line: number) => {
    const command = normaliseCommand(text);
    if (command && !found.some((c) => c.command === command)) found.push({ command, document, line });
  };
  let inCommandTable = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^(\s*)(```+|~~~+)\s*([\w-]*)/.exec(line);
    if (fence) {
      const close = lines.findIndex((l, j) => j > i && l.trim().startsWith(fence[2]!));
      const end = close < 0 ? lines.length : close;
      const language = fence[3]!.toLowerCase();
      if (SHELL_FENCES.has(language)) {
        for (const { text, offset } of blockCommands(lines.slice(i + 1, end), language))
          add(text, i + 2 + offset);
      }
      i = end;
      inCommandTable = false;
      continue;
    }
    if (!line.trim().startsWith('|')) {
      inCommandTable = false;
      continue;
    }
    const cells = tableCells(line);
    const previous = lines[i - 1]?.trim() ?? '';
    if (!previous.startsWith('|')) {
      // A table's header row.
      inCommandTable = COMMAND_COLUMN.test(cells[0] ?? '');
      continue;
    }
    if (!inCommandTable || /^[-:\s|]+$/.test(line)) continue;
    for (const [, code] of (cells[0] ?? '').matchAll(/`([^`]+)`/g)) {
      if (COMMAND_PREFIX.test(`${code!} `)) add(code!, i + 1);
    }
  }
  return found;
}

/** README.md and every Markdown file under docs/, relative to `root`, in a stable order. */
export function documentsOf(root: string): string[] {
  const docs: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) docs.push(relative(root, path));
    }
  };
  walk(join(root, 'docs'));
  return ['README.md', ...docs.sort()];
}

/** Every command README.md and docs/**\/*.md tell their reader to run, one per document and command. */
export function documentedCommands(root: string): DocumentedCommand[] {
  return documentsOf(root).flatMap((document) =>
    commandsOfMarkdown(readFileSync(join(root, document), 'utf8'), document),
  );
}
