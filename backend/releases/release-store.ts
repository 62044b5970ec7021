import type { Database } from '../db/database';
import { runMigrations } from '../db/migrations';
import type { ContractFingerprint } from './fingerprint';
import { RELEASE_MIGRATIONS } from './migrations';
import type { ChannelState, HistoryEntry, Release, ReleaseFile, ReleasePin } from './model';

type Query = Pick<Database, 'query'>;

interface ReleaseRow {
  service: string;
  version: string;
  package_version: string;
  build_id: string;
  state: string;
  files: string;
  mf_manifest: string | null;
  fingerprint: string;
  publisher: string;
  created_at: number | string;
  published_at: number | string | null;
}

function toRelease(row: ReleaseRow): Release {
  return {
    service: row.service,
    version: row.version,
    packageVersion: row.package_version,
    buildId: row.build_id,
    state: row.state === 'published' ? 'published' : 'staged',
    files: JSON.parse(row.files) as ReleaseFile[],
    mfManifest: row.mf_manifest === null ? null : JSON.parse(row.mf_manifest),
    fingerprint: JSON.parse(row.fingerprint) as ContractFingerprint,
    publisher: row.publisher,
    createdAt: Number(row.created_at),
    publishedAt: row.published_at === null ? null : Number(row.published_at),
  };
}

/**
 * The release tables of the database (backend/releases/migrations.ts): plain reads and writes; the rules
 * (who may move a channel where) are the ReleaseService's.
 */
export class ReleaseStore {
  constructor(private readonly db: Database) {}

  /** Creates the tables when they do not exist (the same idempotent SQL every database start runs). */
  async init(): Promise<void> {
    await runMigrations(this.db, RELEASE_MIGRATIONS);
  }

  async get(service: string, version: string): Promise<Release | undefined> {
    const { rows } = await this.db.query<ReleaseRow>(
      'SELECT * FROM releases WHERE service = $1 AND version = $2',
      [service, version],
    );
    return rows[0] && toRelease(rows[0]);
  }

  /** Every release of a service, newest first. */
  async list(service: string): Promise<Release[]> {
    const { rows } = await this.db.query<ReleaseRow>(
      'SELECT * FROM releases WHERE service = $1 ORDER BY created_at DESC, version DESC',
      [service],
    );
    return rows.map(toRelease);
  }

  /** Records a staged release; an existing release of the same version is left as it is. */
  async insertStaged(release: Release): Promise<void> {
    await this.db.query(
      `INSERT INTO releases (service, version, package_version, build_id, state, files, mf_manifest,
         fingerprint, publisher, created_at, published_at)
       VALUES ($1, $2, $3, $4, 'staged', $5, $6, $7, $8, $9, NULL)
       ON CONFLICT (service, version) DO NOTHING`,
      [
        release.service,
        release.version,
        release.packageVersion,
        release.buildId,
        JSON.stringify(release.files),
        release.mfManifest === null ? null : JSON.stringify(release.mfManifest),
        JSON.stringify(release.fingerprint),
        release.publisher,
        release.createdAt,
      ],
    );
  }

  /** Marks a staged release published at `at`. */
  async markPublished(service: string, version: string, at: number): Promise<void> {
    await this.db.query(
      `UPDATE releases SET state = 'published', published_at = $3
       WHERE service = $1 AND version = $2 AND state = 'staged'`,
      [service, version, at],
    );
  }

  /** The staged releases created before `before` (ms), of every service. */
  async stagedBefore(before: number): Promise<Array<{ service: string; version: string }>> {
    const { rows } = await this.db.query<{ service: string; version: string }>(
      `SELECT service, version FROM releases WHERE state = 'staged' AND created_at < $1 ORDER BY created_at`,
      [before],
    );
    return rows;
  }

  async delete(service: string, version: string): Promise<void> {
    await this.db.query('DELETE FROM releases WHERE service = $1 AND version = $2', [service, version]);
  }

  /** The services that have at least one release record, by name. */
  async servicesWithReleases(): Promise<string[]> {
    const { rows } = await this.db.query<{ service: string }>(
      'SELECT DISTINCT service FROM releases ORDER BY service',
    );
    return rows.map((r) => r.service);
  }

  /** Every service's channel. */
  async channels(): Promise<ChannelState[]> {
    const { rows } = await this.db.query<{
      service: string;
      live: string | null;
      canary: string | null;
      canary_percent: number;
      rev: number | string;
    }>('SELECT service, live, canary, canary_percent, rev FROM release_channels');
    return rows.map((r) => ({
      service: r.service,
      live: r.live,
      canary: r.canary ? { version: r.canary, percent: Number(r.canary_percent) } : null,
      rev: Number(r.rev),
    }));
  }

  /** Every pin, by service. */
  async pins(): Promise<Map<string, ReleasePin[]>> {
    const { rows } = await this.db.query<{
      service: string;
      kind: string;
      subject: string;
      version: string;
      actor: string;
      at: number | string;
    }>('SELECT service, kind, subject, version, actor, at FROM release_pins ORDER BY at');
    const out = new Map<string, ReleasePin[]>();
    for (const r of rows) {
      const list = out.get(r.service) ?? [];
      list.push({
        kind: r.kind === 'role' ? 'role' : 'user',
        subject: r.subject,
        version: r.version,
        actor: r.actor,
        at: Number(r.at),
      });
      out.set(r.service, list);
    }
    return out;
  }

  /** A service's history, newest first. */
  async history(service: string, limit = 100): Promise<HistoryEntry[]> {
    const { rows } = await this.db.query<{
      seq: number | string;
      at: number | string;
      actor: string;
      action: HistoryEntry['action'];
      version: string | null;
      previous: string | null;
      forced: boolean;
      detail: string | null;
    }>(
      `SELECT seq, at, actor, action, version, previous, forced, detail FROM release_history
       WHERE service = $1 ORDER BY seq DESC LIMIT $2`,
      [service, limit],
    );
    return rows.map((r) => ({
      seq: Number(r.seq),
      at: Number(r.at),
      actor: r.actor,
      action: r.action,
      version: r.version,
      previous: r.previous,
      forced: Boolean(r.forced),
      ...(r.detail ? { detail: JSON.parse(r.detail) } : {}),
    }));
  }

  /**
   * Applies one change of a service's channel in one transaction: the channel row (created on first use,
   * locked, its `rev` raised), the pins changed, and the history entry. Readers see the old state or the
   * new one, never a mix. With `previousIsLive`, the entry's `previous` is the live release as the locked
   * row holds it, so two gateways promoting at once each record the release they really replaced.
   */
  async change(
    service: string,
    change: {
      live?: string | null;
      canary?: { version: string; percent: number } | null;
      pin?: { kind: 'user' | 'role'; subject: string; version: string | null };
      previousIsLive?: boolean;
      entry: Omit<HistoryEntry, 'seq'>;
    },
  ): Promise<void> {
    await this.db.transaction(async (tx: Query) => {
      await tx.query('INSERT INTO release_channels (service) VALUES ($1) ON CONFLICT (service) DO NOTHING', [
        service,
      ]);
      const { rows } = await tx.query<{ live: string | null }>(
        'SELECT live FROM release_channels WHERE service = $1 FOR UPDATE',
        [service],
      );
      const entry = change.previousIsLive
        ? { ...change.entry, previous: rows[0]?.live ?? null }
        : change.entry;
      const sets = ['rev = rev + 1'];
      const params: unknown[] = [service];
      if (change.live !== undefined) {
        params.push(change.live);
        sets.push(`live = $${params.length}`);
      }
      if (change.canary !== undefined) {
        params.push(change.canary?.version ?? null);
        sets.push(`canary = $${params.length}`);
        params.push(change.canary?.percent ?? 0);
        sets.push(`canary_percent = $${params.length}`);
      }
      await tx.query(`UPDATE release_channels SET ${sets.join(', ')} WHERE service = $1`, params);
      if (change.pin) {
        const { kind, subject, version } = change.pin;
        if (version === null) {
          await tx.query('DELETE FROM release_pins WHERE service = $1 AND kind = $2 AND subject = $3', [
            service,
            kind,
            subject,
          ]);
        } else {
          await tx.query(
            `INSERT INTO release_pins (service, kind, subject, version, actor, at) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (service, kind, subject) DO UPDATE SET version = EXCLUDED.version,
               actor = EXCLUDED.actor, at = EXCLUDED.at`,
            [service, kind, subject, version, entry.actor, entry.at],
          );
        }
      }
      await appendHistory(tx, service, entry);
    });
  }

  /** Records a history entry that moves no channel (a publication). */
  async record(service: string, entry: Omit<HistoryEntry, 'seq'>): Promise<void> {
    await this.db.transaction((tx) => appendHistory(tx, service, entry));
  }
}

async function appendHistory(tx: Query, service: string, entry: Omit<HistoryEntry, 'seq'>): Promise<void> {
  await tx.query(
    `INSERT INTO release_history (service, seq, at, actor, action, version, previous, forced, detail)
     SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $5, $6, $7, $8 FROM release_history WHERE service = $1`,
    [
      service,
      entry.at,
      entry.actor,
      entry.action,
      entry.version,
      entry.previous,
      entry.forced,
      entry.detail === undefined ? null : JSON.stringify(entry.detail),
    ],
  );
}
