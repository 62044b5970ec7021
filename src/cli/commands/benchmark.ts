import type { Command } from '../main';

/** `m benchmark`: Run a load test. */
export const benchmarkCommand: Command = {
  summary: 'Run a load test.',
  async run() {
    console.error('m benchmark: not available yet');
    return 1;
  },
};
