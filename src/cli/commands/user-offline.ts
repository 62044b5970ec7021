import type { UserAdmin } from './user-admin';

/** Where a stopped server keeps its state. */
export interface OfflineOptions {
  dataDir?: string;
  config?: string;
}

/** Opens the users of a stopped server's data directory. */
export async function openOfflineUserAdmin(_options: OfflineOptions): Promise<UserAdmin> {
  throw Object.assign(new Error('offline user administration is not available yet'), { code: 'failed' });
}
