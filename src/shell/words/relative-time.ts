/**
 * How long ago something happened, in the reader's words ("5 minutes ago", "yesterday"), for places where
 * the exact time matters less than its age (a list's "Last changed by"). The exact time goes in a tooltip or
 * a `<time dateTime>` beside it.
 */

const UNITS: ReadonlyArray<{ unit: Intl.RelativeTimeFormatUnit; seconds: number }> = [
  { unit: 'year', seconds: 365 * 24 * 3600 },
  { unit: 'month', seconds: 30 * 24 * 3600 },
  { unit: 'week', seconds: 7 * 24 * 3600 },
  { unit: 'day', seconds: 24 * 3600 },
  { unit: 'hour', seconds: 3600 },
  { unit: 'minute', seconds: 60 },
];

/**
 * `value` (an ISO 8601 date-time) relative to `now`, in the reader's locale; the raw value when it is not a
 * date, empty when there is none. Under a minute reads as "now": the clocks of server and browser may
 * differ by seconds, and "in 3 seconds" would only confuse.
 */
export function relativeTime(value: unknown, now: Date = new Date()): string {
  if (typeof value !== 'string' || !value) return '';
  const at = Date.parse(value);
  if (Number.isNaN(at)) return value;
  const seconds = (at - now.getTime()) / 1000;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const { unit, seconds: size } of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(0, 'second');
}
