import type { Command } from '../main';

/** `m keys`: Manage payload-encryption keys. */
export const keysCommand: Command = {
  summary: 'Manage payload-encryption keys.',
  async run() {
    console.error('m keys: not available yet');
    return 1;
  },
};
