import type { z } from 'zod';
import type { MenuItem } from '../../src/protocol';
import type { AppContext } from '../context';
import type { DocTypeDefinition } from '../doctypes/define-doctype';
import type { Principal } from '../http/env';
import type { PermissionRule } from '../permissions/model';

/** What an RPC method receives: the shared context, the caller, positional `args` and validated `kwargs`. */
export interface RpcCall<K = Record<string, unknown>> {
  ctx: AppContext;
  /** Set by AuthMiddleware; undefined only where no auth chain runs (unit tests of a method). */
  principal?: Principal;
  args: unknown[];
  kwargs: K;
}

/**
 * A whitelisted RPC method (`POST /api/method/<dotted.name>`). `kwargs` is the zod schema the JSON body
 * (minus `args`) must satisfy; a failure is 422 `validation_failed` before the handler runs. The handler's
 * return value becomes `{ "message": <value> }`.
 */
export interface RpcMethod<K = Record<string, unknown>> {
  description: string;
  /** Roles that may call it (docs/permissions.md); none declared: System Managers only. */
  roles?: readonly string[];
  kwargs: z.ZodType<K>;
  handler(call: RpcCall<K>): unknown | Promise<unknown>;
}

/** An installed app: its DocTypes, RPC methods (keyed by full dotted name) and Desk menu entries. */
export interface InstalledApp {
  /** Service name, e.g. `crm`; also the `<app>` prefix of its DocTypes. */
  name: string;
  label: string;
  doctypes: DocTypeDefinition[];
  /** Full dotted name (`crm.api.customer_count`) -> method. Every name starts with `<app>.`. */
  // biome-ignore lint/suspicious/noExplicitAny: each method has its own kwargs type
  methods: Record<string, RpcMethod<any>>;
  menus: MenuItem[];
  /**
   * Default permissions per DocType (full name -> rules per role; docs/permissions.md). A DocType without
   * rules is for System Managers only. Administrators may replace them at run time.
   */
  permissions?: Record<string, readonly PermissionRule[]>;
  /**
   * The app's folder when it was installed from a path (`<dir>/static/mfe/` holds its UI remote); built-in
   * apps live in `backend/apps/<name>/`.
   */
  dir?: string;
}

/**
 * Declares an RPC method, inferring the handler's `kwargs` type from the zod schema.
 *
 * @example
 * defineRpcMethod({ description: 'Echo', kwargs: z.object({ text: z.string() }), handler: ({ kwargs }) => kwargs.text });
 */
export function defineRpcMethod<S extends z.ZodType>(method: {
  description: string;
  roles?: readonly string[];
  kwargs: S;
  handler(call: RpcCall<z.output<S>>): unknown | Promise<unknown>;
}): RpcMethod<z.output<S>> {
  return method as RpcMethod<z.output<S>>;
}
