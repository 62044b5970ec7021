/**
 * True when a NATS subject matches a subscription pattern: tokens are separated by `.`, `*` matches exactly
 * one token and a final `>` matches one or more (the NATS subject rules, so the in-process bus and NATS
 * route the same subjects alike).
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const got = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    const token = want[i];
    if (token === '>' && i === want.length - 1) return got.length > i;
    if (i >= got.length) return false;
    if (token !== '*' && token !== got[i]) return false;
  }
  return want.length === got.length;
}
