/**
 * What the Releases page says about a service's releases, in plain words and without React: each history
 * entry as one sentence, the differences a forced move overrode, and which release a rollback brings back.
 */
import type { FieldError, ReleaseHistoryEntry, ServiceReleasesAnswer } from '../../protocol';

/**
 * The release a rollback makes live again, as the server chooses it: the release that was live before the
 * latest promotion of the current one; undefined when there is none (nothing to roll back to).
 */
export function rollbackTarget(
  answer: Pick<ServiceReleasesAnswer, 'channel' | 'history'>,
): string | undefined {
  const live = answer.channel.live;
  if (!live) return undefined;
  const promotion = answer.history.find((e) => e.action === 'promote' && e.version === live);
  return promotion?.previous ?? undefined;
}

function isFieldError(value: unknown): value is FieldError {
  const f = value as Partial<FieldError> | null;
  return typeof f?.field === 'string' && typeof f.code === 'string' && typeof f.message === 'string';
}

/** The contract differences a forced move overrode (none for a move that passed the gate). */
export function forcedDifferences(entry: ReleaseHistoryEntry): FieldError[] {
  if (!entry.forced) return [];
  const detail = entry.detail as unknown;
  const list = Array.isArray(detail)
    ? detail
    : (detail as { differences?: unknown } | undefined)?.differences;
  return Array.isArray(list) ? list.filter(isFieldError) : [];
}

function subjectOf(detail: unknown): string {
  const d = detail as { kind?: unknown; subject?: unknown } | undefined;
  if (typeof d?.subject !== 'string') return 'someone';
  return d.kind === 'role' ? `the role ${d.subject}` : `the user ${d.subject}`;
}

/** One history entry as a sentence: who did what (the time and a forced move's differences aside). */
export function historySentence(entry: ReleaseHistoryEntry): string {
  const { actor, version, previous } = entry;
  const forced = entry.forced ? ', forced past the contract check' : '';
  switch (entry.action) {
    case 'publish':
      return `${actor} published ${version}.`;
    case 'promote':
      return previous
        ? `${actor} promoted ${version} (live was ${previous})${forced}.`
        : `${actor} promoted ${version}, the first live release${forced}.`;
    case 'rollback':
      return `${actor} rolled back to ${version} (from ${previous})${forced}.`;
    case 'canary': {
      const percent = (entry.detail as { percent?: unknown } | undefined)?.percent;
      return version && typeof percent === 'number' && percent > 0
        ? `${actor} sent ${percent}% of users to ${version}${forced}.`
        : `${actor} ended the canary.`;
    }
    case 'pin':
      return `${actor} pinned ${version} for ${subjectOf(entry.detail)}.`;
    case 'unpin':
      return `${actor} removed the pin of ${subjectOf(entry.detail)}.`;
  }
}
