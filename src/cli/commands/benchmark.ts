import type { Command } from '../command';

/** `m benchmark`: run a load test described by a YAML file (the harness under src/benchmarks). */
export const benchmarkCommand: Command = {
  async run(argv) {
    const { benchmarkCli } = await import('../../benchmarks/cli');
    return benchmarkCli(argv);
  },
};
