import type { Command } from '../main';

/** `m types`: TypeScript types for every DocType a gateway knows. */
export const typesCommand: Command = {
  summary: 'Write TypeScript types for every DocType a gateway knows (m types --gateway <url>).',
  async run() {
    console.error('m types: not available yet');
    return 1;
  },
};
