/**
 * `GET <metaUrl>`: a service's DocTypes with their fields (and the `encrypted` / `pii` flags that drive
 * metadata-mode encryption) and its menus (docs/http-api.md#metadata).
 */

import type { ServiceMetadata } from '../../protocol';
import { SdkError } from '../errors';
import { httpClient } from '../http/default-client';
import type { HttpClient } from '../http/http-client';

/**
 * Fetches and shape-checks a service's metadata. Throws `invalid_response` when the answer is not
 * `{ service, doctypes: [...], menus: [...] }`, or the `HttpError` of a non-2xx answer.
 *
 * @example
 * const meta = await fetchServiceMetadata(discovery.getManifest('crm')!.metaUrl);
 * const customerSchema = meta.doctypes.find((d) => d.name === 'crm.Customer');
 */
export async function fetchServiceMetadata(
  metaUrl: string,
  options: { http?: HttpClient; signal?: AbortSignal } = {},
): Promise<ServiceMetadata> {
  const answer = await (options.http ?? httpClient).fetch<ServiceMetadata>(metaUrl, {
    signal: options.signal,
  });
  const ok =
    typeof answer === 'object' &&
    answer !== null &&
    typeof answer.service === 'string' &&
    Array.isArray(answer.doctypes) &&
    answer.doctypes.every((d) => typeof d?.name === 'string' && Array.isArray(d.fields)) &&
    Array.isArray(answer.menus);
  if (!ok) throw new SdkError('invalid_response', `The metadata at ${metaUrl} is malformed.`);
  return answer;
}
