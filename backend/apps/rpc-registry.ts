// biome-ignore-all lint/suspicious/noExplicitAny: the registry holds methods of many kwargs types
import type { InstalledApp, RpcMethod } from '../../src/contract';

/** Pattern of an RPC method name: dotted, lower-case segments (`crm.api.customer_count`). */
export const RPC_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}(\.[a-z_][a-z0-9_]{0,63}){1,7}$/;

/** The RPC methods of the installed apps, by full dotted name. */
export interface RpcRegistry {
  get(name: string): RpcMethod<any> | undefined;
  /** Every method name, sorted. */
  list(): string[];
}

/**
 * Builds the registry. A method whose name is malformed or does not start with `<app>.` of the app declaring
 * it is a startup error, so a method's owning service is always its first segment.
 */
export function createRpcRegistry(apps: ReadonlyArray<Pick<InstalledApp, 'name' | 'methods'>>): RpcRegistry {
  const methods = new Map<string, RpcMethod<any>>();
  for (const app of apps) {
    for (const [name, method] of Object.entries(app.methods)) {
      if (!RPC_NAME_PATTERN.test(name) || !name.startsWith(`${app.name}.`)) {
        throw new Error(
          `RPC method "${name}" of app "${app.name}" must be named ${app.name}.<module>.<method>`,
        );
      }
      if (methods.has(name)) throw new Error(`RPC method ${name} is declared twice`);
      methods.set(name, method);
    }
  }
  const names = [...methods.keys()].sort();
  return { get: (name) => methods.get(name), list: () => [...names] };
}
