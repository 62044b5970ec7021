/**
 * The process's own figures for `/metrics`, under the names Prometheus' client libraries use: CPU seconds,
 * resident memory, the V8 heap, the start time, and the event loop's delay (p99 and max since the previous
 * scrape, from Node's sampling histogram: a loop kept busy shows here before latency does).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MetricsCollector } from './registry';

/** Resolution of the event-loop delay sampler, ms (Node's default is 10). */
const LOOP_RESOLUTION_MS = 20;

/** A collector of the process's figures, and `stop` to end the loop sampling. */
export function processMetrics(): { collect: MetricsCollector; stop(): void } {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const startSeconds = Math.round((Date.now() - process.uptime() * 1000) / 1000);
  const collect: MetricsCollector = () => {
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    // The histogram holds nanoseconds; a scrape reads the interval since the previous one, then starts anew.
    const p99 = loop.count > 0 ? loop.percentile(99) / 1e9 : 0;
    const max = loop.count > 0 ? loop.max / 1e9 : 0;
    loop.reset();
    return [
      {
        type: 'counter',
        name: 'process_cpu_seconds',
        help: 'CPU time of this process (user and system), seconds.',
        samples: [{ value: (cpu.user + cpu.system) / 1e6 }],
      },
      {
        type: 'gauge',
        name: 'process_resident_memory_bytes',
        help: 'Resident memory of this process, bytes.',
        samples: [{ value: memory.rss }],
      },
      {
        type: 'gauge',
        name: 'process_start_time_seconds',
        help: 'When this process started, seconds since the Unix epoch.',
        samples: [{ value: startSeconds }],
      },
      {
        type: 'gauge',
        name: 'nodejs_heap_used_bytes',
        help: 'V8 heap in use, bytes.',
        samples: [{ value: memory.heapUsed }],
      },
      {
        type: 'gauge',
        name: 'nodejs_eventloop_delay_seconds',
        help: `Event-loop delay since the previous scrape (sampled every ${LOOP_RESOLUTION_MS} ms), by quantile.`,
        samples: [
          { labels: { quantile: '0.99' }, value: p99 },
          { labels: { quantile: '1' }, value: max },
        ],
      },
    ];
  };
  return { collect, stop: () => loop.disable() };
}
