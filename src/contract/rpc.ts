import type { z } from 'zod';
import type { AppServices } from './app-services';

/**
 * What an RPC method's handler receives: the {@link AppServices} of its app, positional `args` and the
 * validated `kwargs`.
 */
export interface RpcCall<K = Record<string, unknown>> extends AppServices {
  /**
   * The same services as the call itself, for handlers written as `({ ctx }) => ctx.records.count(...)`.
   * @deprecated Destructure the services from the call instead (`({ records, kwargs }) => ...`).
   */
  readonly ctx: AppServices;
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
