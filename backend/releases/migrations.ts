import { type Migration, registerMigration } from '../db/migrations';

/**
 * The schema of releases (docs/operators.md#releases): one row per release (its files and their hashes as
 * published, its contract fingerprint), one channel row per service (the live release and the canary, moved
 * by single-row updates), the promotion history, and the pins. Times are milliseconds since the epoch.
 */
export const RELEASE_MIGRATIONS: readonly Migration[] = [
  {
    id: 'releases.tables',
    sql: `
      CREATE TABLE IF NOT EXISTS releases (
        service         text NOT NULL,
        version         text NOT NULL,
        package_version text NOT NULL,
        build_id        text NOT NULL,
        state           text NOT NULL,
        files           text NOT NULL,
        mf_manifest     text,
        fingerprint     text NOT NULL,
        publisher       text NOT NULL,
        created_at      bigint NOT NULL,
        published_at    bigint,
        PRIMARY KEY (service, version)
      );
      CREATE TABLE IF NOT EXISTS release_channels (
        service        text PRIMARY KEY,
        live           text,
        canary         text,
        canary_percent integer NOT NULL DEFAULT 0,
        rev            bigint NOT NULL DEFAULT 0
      );
      CREATE TABLE IF NOT EXISTS release_history (
        service  text NOT NULL,
        seq      bigint NOT NULL,
        at       bigint NOT NULL,
        actor    text NOT NULL,
        action   text NOT NULL,
        version  text,
        previous text,
        forced   boolean NOT NULL DEFAULT false,
        detail   text,
        PRIMARY KEY (service, seq)
      );
      CREATE TABLE IF NOT EXISTS release_pins (
        service  text NOT NULL,
        kind     text NOT NULL,
        subject  text NOT NULL,
        version  text NOT NULL,
        actor    text NOT NULL,
        at       bigint NOT NULL,
        PRIMARY KEY (service, kind, subject)
      );
    `,
  },
];

for (const migration of RELEASE_MIGRATIONS) registerMigration(migration);
