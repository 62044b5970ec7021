// The HTTP exchange as the harness sees it, shared by both transports (the undici pool and the raw socket
// pool) and by everything that reads a response (checks, auth, scenarios). It imports nothing, so the
// transports and their callers all point into it.

/** One HTTP exchange as the harness sends it. */
export interface HttpRequest {
  method: string;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The response, body read in full (ids and CSRF tokens come from it). */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /**
   * `performance.now()` when the response's last bytes were read: latency ends here, not after the
   * promise reactions that carry the response to the caller (absent: the caller's own clock).
   */
  receivedMs?: number;
}

/** A body-less request resolved (and for plain http, encoded) once, sent as often as asked. */
export interface PreparedRequest {
  send(): Promise<HttpResponse>;
}
