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
 * return value becomes `{ "message": <value> }`; `returns`, when declared, is the schema of that value, which
 * the OpenAPI document publishes as the response and `m types` turns into the method's return type.
 */
export interface RpcMethod<K = Record<string, unknown>, R = unknown> {
  description: string;
  /** Roles that may call it (docs/permissions.md); none declared: System Managers only. */
  roles?: readonly string[];
  kwargs: z.ZodType<K>;
  /** The schema of the handler's value (the response's `message`); documents it, is not checked per call. */
  returns?: z.ZodType<R>;
  handler(call: RpcCall<K>): R | Promise<R>;
}

/**
 * Declares an RPC method, inferring the handler's `kwargs` type from the zod schema and, with `returns`,
 * holding the handler to the declared return type.
 *
 * @example
 * defineRpcMethod({
 *   description: 'Echo',
 *   kwargs: z.object({ text: z.string() }),
 *   returns: z.string(),
 *   handler: ({ kwargs }) => kwargs.text,
 * });
 */
export function defineRpcMethod<S extends z.ZodType, R extends z.ZodType = z.ZodUnknown>(method: {
  description: string;
  roles?: readonly string[];
  kwargs: S;
  returns?: R;
  handler(call: RpcCall<z.output<S>>): z.input<R> | Promise<z.input<R>>;
}): RpcMethod<z.output<S>, z.input<R>> {
  return method as RpcMethod<z.output<S>, z.input<R>>;
}
