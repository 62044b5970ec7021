/** A record's age in words, as the list's "Last changed by" column shows it. */
import { describe, expect, it } from 'vitest';
import { relativeTime } from '../../src/shell/words/relative-time';

const now = new Date('2026-03-10T12:00:00Z');

describe('relativeTime', () => {
  it('names the largest whole unit that has passed', () => {
    const words = (iso: string) => relativeTime(iso, now);
    const expected = (n: number, unit: Intl.RelativeTimeFormatUnit) =>
      new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }).format(n, unit);
    expect(words('2026-03-10T11:55:00Z')).toBe(expected(-5, 'minute'));
    expect(words('2026-03-10T09:00:00Z')).toBe(expected(-3, 'hour'));
    expect(words('2026-03-09T12:00:00Z')).toBe(expected(-1, 'day'));
    expect(words('2026-02-24T12:00:00Z')).toBe(expected(-2, 'week'));
    expect(words('2025-03-01T12:00:00Z')).toBe(expected(-1, 'year'));
  });

  it('reads anything under a minute, either way, as now', () => {
    const nowWords = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }).format(0, 'second');
    expect(relativeTime('2026-03-10T11:59:30Z', now)).toBe(nowWords);
    expect(relativeTime('2026-03-10T12:00:20Z', now)).toBe(nowWords);
  });

  it('leaves a value that is no date as it is, and nothing as nothing', () => {
    expect(relativeTime('soon', now)).toBe('soon');
    expect(relativeTime(undefined, now)).toBe('');
  });
});
