import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { invalidCharacters, isStorableText } from '../http/safe-json';
import { type ChainStep, stepMiddleware } from './step';

function invalidUrl(): PlatformError {
  return new PlatformError('invalid_url', 'The URL is not valid percent-encoded UTF-8.', { status: 400 });
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalidUrl();
  }
}

/**
 * RequestTargetMiddleware (priority 6, docs/security.md#middleware-chain): the path and every query parameter
 * must decode to storable text. A broken percent-encoding (`%zz`, bytes that are not UTF-8) is 400
 * `invalid_url`; a NUL character is 400 `invalid_characters`. Without this, such values reach the database
 * and fail there as a 500. Synchronous; a target without `%` is not copied or decoded.
 */
export function requestTargetStep(): ChainStep {
  return {
    name: 'requestTarget',
    enter(c) {
      const url = c.req.url;
      const start = url.indexOf('/', url.indexOf('//') + 2);
      if (start === -1 || url.indexOf('%', start) === -1) return undefined;
      const target = url.slice(start);
      const query = target.indexOf('?');
      const path = query === -1 ? target : target.slice(0, query);
      if (!isStorableText(decode(path))) throw invalidCharacters('The path');
      if (query !== -1) {
        for (const pair of target.slice(query + 1).split('&')) {
          if (!isStorableText(decode(pair.replaceAll('+', ' '))))
            throw invalidCharacters('A query parameter');
        }
      }
      return undefined;
    },
  };
}

/** {@link requestTargetStep} as a Hono middleware of its own. */
export function requestTarget(): MiddlewareHandler<AppEnv> {
  return stepMiddleware(requestTargetStep());
}
