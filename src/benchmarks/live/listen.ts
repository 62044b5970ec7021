/** Where a live endpoint listens: `9464`, or `0.0.0.0:9464` to be reachable from other hosts. */
export interface Listen {
  host: string;
  port: number;
}

/**
 * Parses `--metrics-port` / `--dashboard` values; 127.0.0.1 unless a host is given. Apart from the
 * servers (live-server.ts) so that parsing the command line does not load them.
 */
export function parseListen(value: string): Listen | undefined {
  const m = /^(?:(.+):)?(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port > 65535) return undefined;
  return { host: m[1] ?? '127.0.0.1', port };
}
