import { effectivePermissions, mayCallMethod } from './check';
import type { DocTypePermissions, Operation, PermissionMap, PermissionRule } from './model';
import { normalizeRule } from './model';
import type { PermissionRuleStore } from './rule-store';

/** What the service needs to know of the installed apps: declared rules per DocType and roles per method. */
export interface PermissionDeclarations {
  /** Every installed DocType, with the rules its app declares (none: System Manager only). */
  doctypes: ReadonlyArray<{ name: string; permissions?: readonly PermissionRule[] }>;
  /** Every installed RPC method with the roles that may call it (none: System Manager only). */
  methods: ReadonlyArray<{ name: string; roles?: readonly string[] }>;
}

/** Options of {@link PermissionService}. */
export interface PermissionServiceOptions {
  declarations: PermissionDeclarations;
  store: PermissionRuleStore;
  /**
   * How long stored overrides are trusted before being read again, so a change made through another
   * process on the same database is seen; a change made through this service applies at once.
   */
  refreshMs?: number;
  now?: () => number;
}

/**
 * The permissions of one process's DocTypes and RPC methods: the declared defaults, replaced per DocType by
 * the rules an administrator stored. Answers checks for a set of roles; the roles come from the principal
 * (AuthMiddleware in MONOLITH, the gateway's signed principal at a MACROSERVICE service).
 */
export class PermissionService {
  readonly #defaults = new Map<string, PermissionRule[]>();
  readonly #methods = new Map<string, readonly string[]>();
  readonly #store: PermissionRuleStore;
  readonly #refreshMs: number;
  readonly #now: () => number;
  #overrides = new Map<string, PermissionRule[]>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | undefined;

  constructor(options: PermissionServiceOptions) {
    for (const d of options.declarations.doctypes) {
      this.#defaults.set(d.name, (d.permissions ?? []).map(normalizeRule));
    }
    for (const m of options.declarations.methods) this.#methods.set(m.name, m.roles ?? []);
    this.#store = options.store;
    this.#refreshMs = options.refreshMs ?? 2_000;
    this.#now = options.now ?? Date.now;
  }

  /** Creates the store's table and loads the stored overrides. */
  async init(): Promise<void> {
    await this.#store.init();
    await this.#reload();
  }

  /** The DocTypes this service governs, sorted. */
  doctypes(): string[] {
    return [...this.#defaults.keys()].sort();
  }

  /** True when the DocType is governed here. */
  governs(doctype: string): boolean {
    return this.#defaults.has(doctype);
  }

  /** The rules in force for a DocType (the override, else the declared defaults) and whether overridden. */
  async rules(doctype: string): Promise<{ rules: PermissionRule[]; customized: boolean }> {
    await this.#fresh();
    const override = this.#overrides.get(doctype);
    return { rules: override ?? this.#defaults.get(doctype) ?? [], customized: override !== undefined };
  }

  /** What a holder of `roles` may do on one DocType. */
  async permissions(roles: readonly string[], doctype: string): Promise<DocTypePermissions> {
    return effectivePermissions(roles, (await this.rules(doctype)).rules);
  }

  /** True when a holder of `roles` may perform `operation` on the DocType. */
  async allows(roles: readonly string[], doctype: string, operation: Operation): Promise<boolean> {
    return (await this.permissions(roles, doctype))[operation];
  }

  /** What a holder of `roles` may do on every DocType governed here. */
  async permissionMap(roles: readonly string[]): Promise<PermissionMap> {
    await this.#fresh();
    const map: PermissionMap = {};
    for (const doctype of this.doctypes()) {
      map[doctype] = effectivePermissions(
        roles,
        this.#overrides.get(doctype) ?? this.#defaults.get(doctype)!,
      );
    }
    return map;
  }

  /**
   * The roles the rules in force name (declared or stored, on any DocType governed here) and those that may
   * call an RPC method, sorted: the roles worth giving a user here (docs/permissions.md#users).
   */
  async roles(): Promise<string[]> {
    await this.#fresh();
    const named = new Set<string>();
    for (const doctype of this.doctypes()) {
      for (const rule of this.#overrides.get(doctype) ?? this.#defaults.get(doctype)!) named.add(rule.role);
    }
    for (const roles of this.#methods.values()) for (const role of roles) named.add(role);
    return [...named].sort();
  }

  /** True when a holder of `roles` may call the RPC method. */
  mayCall(roles: readonly string[], method: string): boolean {
    return mayCallMethod(roles, this.#methods.get(method));
  }

  /** Stores the rules of a DocType (they replace its defaults, survive restarts, and apply at once). */
  async setRules(doctype: string, rules: readonly PermissionRule[]): Promise<void> {
    const normalized = rules.map(normalizeRule);
    await this.#store.put(doctype, normalized, this.#now());
    this.#overrides.set(doctype, normalized);
  }

  /** Drops a DocType's stored rules: its declared defaults apply again. */
  async resetRules(doctype: string): Promise<void> {
    await this.#store.delete(doctype);
    this.#overrides.delete(doctype);
  }

  async #fresh(): Promise<void> {
    if (this.#now() - this.#loadedAt < this.#refreshMs) return;
    this.#loading ??= this.#reload().finally(() => {
      this.#loading = undefined;
    });
    await this.#loading;
  }

  async #reload(): Promise<void> {
    this.#overrides = await this.#store.all();
    this.#loadedAt = this.#now();
  }
}
