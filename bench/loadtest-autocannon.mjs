// autocannon in a process of its own, for bench/loadtest.ts: `node bench/loadtest-autocannon.mjs <url>
// <connections> <seconds> [overallRate]`; prints one JSON line: requests, CPU seconds during the run
// (the process's own accounting), p50/p99 in microseconds.
import autocannon from 'autocannon';

const [url, connections, seconds, rate] = process.argv.slice(2);
const before = process.cpuUsage();
const r = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  ...(rate ? { overallRate: Number(rate) } : {}),
});
const cpu = process.cpuUsage(before);
console.log(
  JSON.stringify({
    requests: r.requests.total,
    failures: r.errors + r.non2xx,
    cpuS: (cpu.user + cpu.system) / 1e6,
    p50Us: r.latency.p50 * 1000,
    p99Us: r.latency.p99 * 1000,
  }),
);
