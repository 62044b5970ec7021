import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import type { AuditEntry } from '../../src/protocol/audit';

/** The `prev_hash` of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

export type { AuditEntry };

/** An entry before it is chained. */
export type AuditFacts = Omit<AuditEntry, 'seq' | 'prev_hash' | 'hash'>;

/** SHA-256 of a UTF-8 text, as lower-case hex. */
export type Sha256Hex = (text: string) => string;

/** The portable {@link Sha256Hex}: synchronous and free of Node modules, so it runs in a browser too. */
const portableSha256: Sha256Hex = (text) => bytesToHex(sha256(utf8ToBytes(text)));

/**
 * The hash of an entry: SHA-256 over the previous hash and its fields as one JSON array (fixed order).
 * `hash` is the portable one by default, so the offline mocks keep the same chain in a browser; a server
 * passes Node's native one, the same function several times faster.
 */
function entryHash(entry: Omit<AuditEntry, 'hash'>, hash: Sha256Hex = portableSha256): string {
  const facts = [
    entry.seq,
    entry.at,
    entry.user,
    entry.via,
    entry.doctype,
    entry.record,
    entry.fields,
    entry.route,
    entry.client_address,
  ];
  return hash(`${entry.prev_hash}\n${JSON.stringify(facts)}`);
}

/** Chains `facts` after the entry at `seq` with `hash` (the head of the log), hashing with `sha256Hex`. */
export function chain(
  head: { seq: number; hash: string },
  facts: readonly AuditFacts[],
  sha256Hex?: Sha256Hex,
): AuditEntry[] {
  const out: AuditEntry[] = [];
  let prev = head;
  for (const fact of facts) {
    const unhashed = { ...fact, seq: prev.seq + 1, prev_hash: prev.hash };
    const entry = { ...unhashed, hash: entryHash(unhashed, sha256Hex) };
    out.push(entry);
    prev = entry;
  }
  return out;
}

/** What {@link verifyChain} found. */
export type ChainVerdict =
  | { ok: true; entries: number; head: { seq: number; hash: string } }
  | { ok: false; entries: number; seq: number; problem: string };

/**
 * Checks entries read in `seq` order, from the first: consecutive numbers from 1 (a removed entry leaves a
 * gap), each `prev_hash` equal to the previous `hash` (a removed or reordered entry breaks the link), and
 * each `hash` recomputed (an edited entry no longer matches). Names the first entry that fails. Removing the
 * newest entries leaves a valid shorter chain: compare the head with one recorded elsewhere
 * (docs/operators.md#the-audit-log). Entries that name their `service` (a MACROSERVICE gateway's merged
 * log) are checked as one chain per service, each in its own order; the head is then the last entry's.
 */
export async function verifyChain(
  entries: Iterable<AuditEntry> | AsyncIterable<AuditEntry>,
): Promise<ChainVerdict> {
  const heads = new Map<string | undefined, { seq: number; hash: string }>();
  let head = { seq: 0, hash: GENESIS_HASH };
  let count = 0;
  for await (const entry of entries) {
    count++;
    const before = heads.get(entry.service) ?? { seq: 0, hash: GENESIS_HASH };
    const at = before.seq + 1;
    const where = entry.service === undefined ? '' : `${entry.service}: `;
    const broken = (problem: string): ChainVerdict => ({
      ok: false,
      entries: count,
      seq: at,
      problem: where + problem,
    });
    if (entry.seq !== at) return broken(`entry ${at} is missing (the next one is ${entry.seq})`);
    if (entry.prev_hash !== before.hash) return broken(`entry ${at} does not follow entry ${before.seq}`);
    if (entryHash(entry) !== entry.hash) return broken(`entry ${at} was changed after it was written`);
    head = { seq: entry.seq, hash: entry.hash };
    heads.set(entry.service, head);
  }
  return { ok: true, entries: count, head };
}
