// Preloaded (`node --import`) into a load tool's process by bench/loadtest.ts: on exit, writes the
// process's own accounting (CPU seconds, peak RSS) to the file named by BENCH_USAGE_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({ cpuS: (u.userCPUTime + u.systemCPUTime) / 1e6, maxRssMb: u.maxRSS / 1024 }),
    );
  });
}
