import type { Faker } from '@faker-js/faker';

/** A resolved faker generator: a bound method of one faker module. */
export type Generator = (...args: unknown[]) => unknown;

const SEGMENT = /^[a-z][A-Za-z0-9]*$/;

/**
 * Resolves `<module>.<method>` (e.g. `person.fullName`) to a faker generator by a safe property lookup:
 * exactly two identifier segments, an own module of the faker instance, a function that is not inherited
 * from `Object.prototype`. Nothing is evaluated, so a template can never reach `constructor` or globals.
 * Returns undefined when the path is not a real generator.
 */
export function resolveFakerPath(faker: Faker, path: string): Generator | undefined {
  const segments = path.split('.');
  if (segments.length !== 2 || !segments.every((s) => SEGMENT.test(s))) return undefined;
  const [moduleName, methodName] = segments as [string, string];
  if (!Object.hasOwn(faker, moduleName)) return undefined;
  const mod = (faker as unknown as Record<string, unknown>)[moduleName];
  if (!mod || typeof mod !== 'object') return undefined;
  if (methodName in Object.prototype) return undefined;
  const fn = (mod as Record<string, unknown>)[methodName];
  if (typeof fn !== 'function') return undefined;
  return (fn as Generator).bind(mod);
}
