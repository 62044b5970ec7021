/**
 * The releases API the Releases page calls (System Managers; docs/operators.md#the-releases-api): the
 * overview of the services with releases, one service's channel, pins, releases and history, and the
 * channel moves. A move the contract gate refuses rejects with code `contract_incompatible` and the
 * differences as `fields`; {@link contractDifferencesOf} reads them.
 */
import { RELEASES_PREFIX, type ReleaseOverview, type ServiceReleasesAnswer } from '../../protocol';
import { isSdkError, type SdkFieldError } from '../../sdk/errors';
import { fetchWithCredentials } from '../../sdk/http';

/** Where a service's live release stands after a move. */
export interface ChannelAnswer {
  live: string | null;
  canary: { version: string; percent: number } | null;
  rev: number;
}

/** Calls of the releases API, relative to the gateway. */
export function releasesApi(gatewayUrl: string) {
  const base = `${gatewayUrl}${RELEASES_PREFIX}`;
  const get = async <T>(path: string): Promise<T> =>
    (await fetchWithCredentials<{ data: T }>(`${base}${path}`)).data;
  const post = async <T>(service: string, action: string, body: unknown): Promise<T> =>
    (
      await fetchWithCredentials<{ data: T }>(`${base}/${encodeURIComponent(service)}/${action}`, {
        method: 'POST',
        body,
      })
    ).data;
  return {
    overview: () => get<ReleaseOverview[]>(''),
    service: (service: string) => get<ServiceReleasesAnswer>(`/${encodeURIComponent(service)}`),
    promote: (service: string, version: string, force = false) =>
      post<ChannelAnswer>(service, 'promote', force ? { version, force } : { version }),
    rollback: (service: string, force = false) =>
      post<ChannelAnswer>(service, 'rollback', force ? { force } : {}),
  };
}

/** The calls {@link releasesApi} returns. */
export type ReleasesApi = ReturnType<typeof releasesApi>;

/**
 * The contract differences of a move the gate refused (`contract_incompatible`), or undefined for any
 * other failure.
 */
export function contractDifferencesOf(error: unknown): SdkFieldError[] | undefined {
  if (!isSdkError(error) || error.code !== 'contract_incompatible') return undefined;
  return error.fields ?? [];
}
