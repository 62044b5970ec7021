import type { Database } from '../db/database';
import { normalizeRule, type PermissionRule } from './model';

/**
 * Where the rules an administrator set at run time are kept: per DocType, the complete list of rules that
 * replaces the DocType's declared defaults (as Frappe's Custom DocPerm replaces the standard DocPerm).
 * Implementations: {@link DbPermissionRuleStore} (the database of the process owning the DocType) and
 * {@link MemoryPermissionRuleStore} (tests, offline mocks).
 */
export interface PermissionRuleStore {
  /** Creates what the store needs (a table). */
  init(): Promise<void>;
  /** Every stored override, by DocType. */
  all(): Promise<Map<string, PermissionRule[]>>;
  /** Stores the rules of a DocType, replacing its defaults and any earlier override. */
  put(doctype: string, rules: readonly PermissionRule[], modifiedAt: number): Promise<void>;
  /** Removes a DocType's override: its declared defaults apply again. */
  delete(doctype: string): Promise<void>;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS permission_rules (
  doctype TEXT PRIMARY KEY,
  rules TEXT NOT NULL,
  modified_at BIGINT NOT NULL
);
`;

/** Overrides in the `permission_rules` table: they survive restarts. */
export class DbPermissionRuleStore implements PermissionRuleStore {
  constructor(private readonly db: Pick<Database, 'query' | 'exec'>) {}

  async init(): Promise<void> {
    await this.db.exec(SCHEMA);
  }

  async all(): Promise<Map<string, PermissionRule[]>> {
    const { rows } = await this.db.query<{ doctype: string; rules: string }>(
      'SELECT doctype, rules FROM permission_rules',
    );
    return new Map(
      rows.map((r) => [r.doctype, (JSON.parse(r.rules) as PermissionRule[]).map(normalizeRule)]),
    );
  }

  async put(doctype: string, rules: readonly PermissionRule[], modifiedAt: number): Promise<void> {
    await this.db.query(
      `INSERT INTO permission_rules (doctype, rules, modified_at) VALUES ($1, $2, $3)
       ON CONFLICT (doctype) DO UPDATE SET rules = EXCLUDED.rules, modified_at = EXCLUDED.modified_at`,
      [doctype, JSON.stringify(rules.map(normalizeRule)), modifiedAt],
    );
  }

  async delete(doctype: string): Promise<void> {
    await this.db.query('DELETE FROM permission_rules WHERE doctype = $1', [doctype]);
  }
}

/** Overrides in memory (lost on restart): for tests and the offline mocks. */
export class MemoryPermissionRuleStore implements PermissionRuleStore {
  readonly #rules = new Map<string, PermissionRule[]>();

  async init(): Promise<void> {}

  async all(): Promise<Map<string, PermissionRule[]>> {
    return new Map([...this.#rules].map(([k, v]) => [k, v.map(normalizeRule)]));
  }

  async put(doctype: string, rules: readonly PermissionRule[]): Promise<void> {
    this.#rules.set(doctype, rules.map(normalizeRule));
  }

  async delete(doctype: string): Promise<void> {
    this.#rules.delete(doctype);
  }
}
