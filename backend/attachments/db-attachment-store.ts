/**
 * The attachments of a server process: one row per attachment in the `record_attachments` table, the
 * content in `<data_dir>/attachments/<sha256>`, once per distinct content. A file is written to a temporary
 * name in the same folder, synced, then renamed, so a crash never leaves a partial file under a digest's
 * name. A file is removed with the last row referring to it; adding and removing one digest are serialised
 * in the process (the data directory belongs to one process, docs/operators.md#the-data-directory).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { WriteCompanion } from '../data/records';
import type { Database } from '../db/database';
import { type Attachment, sha256Hex } from './attachment';
import { type AttachmentStore, type NewAttachment, newAttachmentId } from './attachment-store';

const ATTACHMENTS_SQL = `
  CREATE TABLE IF NOT EXISTS record_attachments (
    id         text PRIMARY KEY,
    doctype    text NOT NULL,
    record     text NOT NULL,
    file_name  text NOT NULL,
    media_type text NOT NULL,
    size       bigint NOT NULL,
    sha256     text NOT NULL,
    uploader   text NOT NULL,
    at         timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX IF NOT EXISTS record_attachments_record ON record_attachments (doctype, record, at);
  CREATE INDEX IF NOT EXISTS record_attachments_sha256 ON record_attachments (sha256);
`;

interface Row {
  id: string;
  doctype: string;
  record: string;
  file_name: string;
  media_type: string;
  size: string | number;
  sha256: string;
  uploader: string;
  at: Date | string;
}

const COLUMNS = 'id, doctype, record, file_name, media_type, size, sha256, uploader, at';
const SHA256_HEX = /^[0-9a-f]{64}$/;

function toAttachment(row: Row): Attachment {
  return { ...row, size: Number(row.size), at: new Date(row.at).toISOString() };
}

/** The attachments in the database and under `dir` (`<data_dir>/attachments`). */
export class DbAttachmentStore implements AttachmentStore {
  /** File removals waiting for a delete's transaction to end ({@link removeAll}). */
  private readonly sweeps = new Set<Promise<void>>();
  /** The pending operation on each digest: the next one waits for it. */
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Pick<Database, 'query' | 'exec'>,
    private readonly dir: string,
  ) {}

  /** Creates the table (idempotent). */
  async migrate(): Promise<void> {
    await this.db.exec(ATTACHMENTS_SQL);
  }

  async add(input: NewAttachment): Promise<Attachment> {
    const sha256 = await sha256Hex(input.bytes);
    return this.serialised(sha256, async () => {
      await this.writeContent(sha256, input.bytes);
      const { rows } = await this.db.query<Row>(
        `INSERT INTO record_attachments (id, doctype, record, file_name, media_type, size, sha256, uploader)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [
          newAttachmentId(),
          input.doctype,
          input.record,
          input.fileName,
          input.mediaType,
          input.bytes.byteLength,
          sha256,
          input.uploader,
        ],
      );
      return toAttachment(rows[0]!);
    });
  }

  async list(doctype: string, record: string): Promise<Attachment[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM record_attachments WHERE doctype = $1 AND record = $2 ORDER BY at, id`,
      [doctype, record],
    );
    return rows.map(toAttachment);
  }

  async get(doctype: string, record: string, id: string): Promise<Attachment | undefined> {
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM record_attachments WHERE doctype = $1 AND record = $2 AND id = $3`,
      [doctype, record, id],
    );
    return rows[0] ? toAttachment(rows[0]) : undefined;
  }

  async content(attachment: Attachment): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.pathOf(attachment.sha256)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async remove(doctype: string, record: string, id: string): Promise<boolean> {
    const row = await this.get(doctype, record, id);
    if (!row) return false;
    await this.serialised(row.sha256, async () => {
      await this.db.query('DELETE FROM record_attachments WHERE id = $1', [id]);
      await this.dropIfUnreferenced(row.sha256);
    });
    return true;
  }

  async removeAll(doctype: string, record: string, tx?: Pick<Database, 'query'>): Promise<number> {
    if (!tx) {
      const rows = await this.list(doctype, record);
      for (const row of rows) await this.remove(doctype, record, row.id);
      return rows.length;
    }
    const { rows } = await tx.query<{ sha256: string }>(
      'DELETE FROM record_attachments WHERE doctype = $1 AND record = $2 RETURNING sha256',
      [doctype, record],
    );
    // Not awaited: these statements run on the database's own handle, which waits for `tx` to end; after a
    // rollback the rows are back and the files stay.
    this.sweep(rows.map((r) => r.sha256));
    return rows.length;
  }

  removeAllAlongside(doctype: string, record: string): WriteCompanion {
    return {
      database: (this.db as Partial<Pick<Database, 'identity'>>).identity ?? this.db,
      insert: () => ({
        params: [doctype, record],
        sql: (first, condition) =>
          `DELETE FROM record_attachments WHERE doctype = $${first}::text AND record = $${first + 1}::text
              AND ${condition} RETURNING sha256`,
      }),
      // Told only once the statement stored the delete: the rows are gone for good.
      returned: (digests) => this.sweep(digests as string[]),
    };
  }

  /** Removes, in the background ({@link idle}), the files of `digests` no row refers to any more. */
  private sweep(digests: readonly string[]): void {
    for (const sha256 of new Set(digests)) {
      const sweep = this.serialised(sha256, () => this.dropIfUnreferenced(sha256)).catch(() => {});
      this.sweeps.add(sweep);
      void sweep.finally(() => this.sweeps.delete(sweep));
    }
  }

  async idle(): Promise<void> {
    await Promise.all([...this.sweeps]);
  }

  /** The file of a digest (checked: a digest is the only thing joined to the folder). */
  private pathOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error('not a SHA-256 digest');
    return join(this.dir, sha256);
  }

  private async writeContent(sha256: string, bytes: Uint8Array): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const target = this.pathOf(sha256);
    const temporary = join(this.dir, `.${sha256}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await handle.close();
    await rename(temporary, target);
  }

  private async dropIfUnreferenced(sha256: string): Promise<void> {
    const { rows } = await this.db.query<{ n: string | number }>(
      'SELECT count(*) AS n FROM record_attachments WHERE sha256 = $1',
      [sha256],
    );
    if (Number(rows[0]?.n ?? 0) === 0) await rm(this.pathOf(sha256), { force: true });
  }

  private serialised<T>(sha256: string, work: () => Promise<T>): Promise<T> {
    const before = this.busy.get(sha256) ?? Promise.resolve();
    const next = before.then(work, work);
    const settled = next.catch(() => undefined);
    this.busy.set(sha256, settled);
    void settled.then(() => {
      if (this.busy.get(sha256) === settled) this.busy.delete(sha256);
    });
    return next;
  }
}
