/**
 * The pause a `Retry-After` field asks for (RFC 9110, section 10.2.3): delay-seconds or an HTTP-date, in ms;
 * 0 for a date already past, undefined when absent or malformed. The platform sends delay-seconds with its
 * 429 and 503 answers (docs/http-api.md#errors); each client decides how long it is willing to wait.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  // Every HTTP-date form starts with a day name; anything else Date.parse would accept ("-1") is not one.
  const ms = /^\d+$/.test(text)
    ? Number(text) * 1000
    : /^[A-Za-z]{3}/.test(text)
      ? Date.parse(text) - now
      : Number.NaN;
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}
