/**
 * A minimal cookie jar for one user and one target (RFC 6265 section 5.2, the parts a session needs):
 * name=value pairs from `Set-Cookie`, removed by `Max-Age<=0` or an `Expires` in the past, sent back as
 * one `Cookie` header. Domain and path scoping are not needed: a jar belongs to one target.
 */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Stores the cookies of a response's `Set-Cookie` header(s). */
  store(setCookie: string | string[] | undefined): void {
    if (!setCookie) return;
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => {
        const [k, v = ''] = a.split('=').map((s) => s.trim());
        if (k?.toLowerCase() === 'max-age') return Number(v) <= 0;
        if (k?.toLowerCase() === 'expires') return Date.parse(v) < Date.now();
        return false;
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** The `Cookie` header value, or undefined when the jar is empty. */
  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** Forgets every cookie (before a new login). */
  clear(): void {
    this.cookies.clear();
  }
}
