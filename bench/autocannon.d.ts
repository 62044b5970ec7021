// The part of autocannon's programmatic API the benchmarks use (the package ships no type declarations).
declare module 'autocannon' {
  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Requests sent in turn; `setupRequest` may rewrite each one before it is sent. */
    requests?: Array<{ setupRequest?: (request: { body?: string }) => { body?: string } }>;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }
  interface AutocannonResult {
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
}
