import type { Faker } from '@faker-js/faker';

/**
 * faker is loaded only by plans that use it: half a megabyte of code and locale data, tens of
 * milliseconds of every start otherwise (a run of fixed endpoints never renders a faker value).
 */
let loaded: Faker | undefined;

/** Loads faker (English), once; the plan compilers and the doctype and flow scenarios use this instance. */
export async function loadFaker(): Promise<Faker> {
  loaded ??= (await import('@faker-js/faker/locale/en')).faker;
  return loaded;
}

/** faker as {@link loadFaker} loaded it; undefined before. */
export function loadedFaker(): Faker | undefined {
  return loaded;
}

/**
 * Whether a plan read from `text`, with `env` substituted into it, may name faker: its templates are in
 * the text or in the values of variables it substitutes.
 */
export function mayUseFaker(text: string, env: Record<string, string | undefined>): boolean {
  if (text.includes('faker')) return true;
  for (const k in env) if (env[k]?.includes('faker')) return true;
  return false;
}

/** Loads faker when a plan read from `text` with `env` may use it (see {@link mayUseFaker}). */
export async function loadFakerFor(text: string, env: Record<string, string | undefined>): Promise<void> {
  if (mayUseFaker(text, env)) await loadFaker();
}
