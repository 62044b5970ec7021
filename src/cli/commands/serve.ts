import type { Command } from '../main';

/** `m serve`: Start the backend. */
export const serveCommand: Command = {
  summary: 'Start the backend.',
  async run() {
    console.error('m serve: not available yet');
    return 1;
  },
};
