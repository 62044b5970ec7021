import { type PGlite, parse, protocol } from '@electric-sql/pglite';

/** How many prepared statements one database keeps; the least recently used is closed beyond it. */
export const PREPARED_STATEMENT_LIMIT = 256;

/** Postgres refuses to run a prepared statement whose result columns changed (its table's columns did). */
const CACHED_PLAN_CHANGED = '0A000';

type BackendMessage = Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number];

/** The rows of one statement, as PGlite's own `query` answers them. */
export interface StatementResult<T> {
  rows: T[];
  affectedRows?: number;
}

/**
 * Runs PGlite's parameterised statements as named prepared statements of the extended protocol: a statement
 * is parsed and analysed once, and each later run sends only its parameters (Bind, Describe, Execute and
 * Sync in one message), so Postgres reuses what it parsed and, once its plan cache finds a generic plan no
 * costlier than the custom ones, the plan too. PGlite's `query` parses and plans the text again on every call
 * and crosses into WebAssembly six times for it; on the records table a read by name cost about half as much
 * CPU this way, a bounded count a fifth (docs/performance.md#statements-on-the-embedded-database). The plan cache follows
 * the schema by itself: an `ANALYZE` or a new index invalidates the plans that depend on it; a statement
 * whose result columns changed with its table is refused by Postgres, and prepared again.
 *
 * Parameters are sent as text, serialised from their JavaScript type the way node-postgres does it (the
 * server infers each parameter's type from the statement), so a statement and its parameters mean the same
 * on the embedded database and on a PostgreSQL server. The caller holds PGlite's locks.
 */
export class PreparedStatements {
  readonly #pg: PGlite;
  readonly #limit: number;
  /** Statement text to its name, least recently used first. */
  readonly #names = new Map<string, string>();
  /** Names evicted from {@link #names}, closed by the next message sent. */
  #evicted: string[] = [];
  #serial = 0;

  constructor(pg: PGlite, limit = PREPARED_STATEMENT_LIMIT) {
    this.#pg = pg;
    this.#limit = limit;
  }

  /** How many statements are prepared (tests). */
  get size(): number {
    return this.#names.size;
  }

  /** Runs `sql` with `params`; throws Postgres's error (with its `code`) when the statement fails. */
  async run<T>(sql: string, params: readonly unknown[]): Promise<StatementResult<T>> {
    try {
      return await this.#run<T>(sql, params);
    } catch (error) {
      // Its table's columns changed since it was prepared (`SELECT *` after a migration): prepare it again.
      if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED || !this.#forget(sql)) throw error;
      return this.#run<T>(sql, params);
    }
  }

  async #run<T>(sql: string, params: readonly unknown[]): Promise<StatementResult<T>> {
    const parts: Uint8Array[] = [];
    for (const name of this.#evicted) parts.push(protocol.serialize.close({ type: 'S', name }));
    this.#evicted = [];
    let name = this.#names.get(sql);
    const parsing = name === undefined;
    if (name === undefined) {
      name = `platform_${++this.#serial}`;
      parts.push(protocol.serialize.parse({ name, text: sql, types: [] }));
    } else {
      this.#names.delete(sql);
      this.#names.set(sql, name);
    }
    parts.push(
      protocol.serialize.bind({ statement: name, values: params.map(textParameter) }),
      protocol.serialize.describe({ type: 'P' }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
    );
    // Errors are read from the messages, not thrown, to learn whether the Parse succeeded before a later
    // step failed (the statement then exists and is kept). The Sync always ends the exchange.
    const { messages } = await this.#pg.execProtocol(Buffer.concat(parts), {
      syncToFs: false,
      throwOnError: false,
    });
    if (parsing && messages.some((m) => m.name === 'parseComplete')) this.#remember(sql, name);
    const error = messages.find(isError);
    if (error) throw error;
    const [result] = parse.parseResults(messages, this.#pg.parsers);
    return { rows: (result?.rows ?? []) as T[], affectedRows: result?.affectedRows };
  }

  #remember(sql: string, name: string): void {
    this.#names.set(sql, name);
    if (this.#names.size <= this.#limit) return;
    const [oldest, oldestName] = this.#names.entries().next().value as [string, string];
    this.#names.delete(oldest);
    this.#evicted.push(oldestName);
  }

  /** Drops `sql`'s statement (closed by the next message); false when it was not prepared. */
  #forget(sql: string): boolean {
    const name = this.#names.get(sql);
    if (name === undefined) return false;
    this.#names.delete(sql);
    this.#evicted.push(name);
    return true;
  }
}

function isError(message: BackendMessage): message is BackendMessage & Error {
  return message.name === 'error';
}

/**
 * A parameter in Postgres's text format, from its JavaScript type, as node-postgres sends it: null for
 * null and undefined, bytes as `\x` hex, a date as ISO 8601, an array as an array literal, another object as
 * JSON, anything else as its string.
 */
export function textParameter(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array)
    return `\\x${Buffer.from(value.buffer, value.byteOffset, value.length).toString('hex')}`;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return arrayLiteral(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function arrayLiteral(values: readonly unknown[]): string {
  const items = values.map((value) => {
    if (value === null || value === undefined) return 'NULL';
    if (Array.isArray(value)) return arrayLiteral(value);
    const text = textParameter(value)!;
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${items.join(',')}}`;
}
