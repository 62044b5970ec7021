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
  | {
      ok: true;
      entries: number;
      head: { seq: number; hash: string };
      /** Each service's head, when the entries name their `service` (a MACROSERVICE gateway's merged log). */
      heads?: Record<string, { seq: number; hash: string }>;
    }
  | {
      ok: false;
      entries: number;
      seq: number;
      problem: string;
      /**
       * Set when a recorded head does not fit the log's form rather than its content: one naming a service
       * for a log of one chain (a MONOLITH's, a service's directory), or one naming none for a gateway's
       * merged log. Nothing is known against the log then: a mistake in the command, not a rewritten log.
       */
      headForm?: true;
    };

/**
 * A head recorded earlier (the `seq` and `hash` a check printed), to compare the chain with: the entry at
 * `seq` must still be there with that `hash`. `service` names the chain in a merged log.
 */
export interface RecordedHead {
  service?: string;
  seq: number;
  hash: string;
}

/**
 * A recorded head as written on the command line or in a query string: `<seq>:<hash>`, or
 * `<service>/<seq>:<hash>` for a service's chain in a merged log (the hash in hex, 64 digits); undefined
 * when `text` is not one.
 */
export function parseRecordedHead(text: string): RecordedHead | undefined {
  const match = /^(?:([^/:\s]+)\/)?([1-9]\d{0,14}):([0-9a-fA-F]{64})$/.exec(text.trim());
  if (!match) return undefined;
  const head: RecordedHead = { seq: Number(match[2]), hash: match[3]!.toLowerCase() };
  return match[1] === undefined ? head : { service: match[1], ...head };
}

/** How a recorded head is written: `<seq>:<hash>`, or `<service>/<seq>:<hash>`. */
export function formatRecordedHead(head: RecordedHead): string {
  return `${head.service === undefined ? '' : `${head.service}/`}${head.seq}:${head.hash}`;
}

/**
 * Checks entries read in `seq` order, from the first: consecutive numbers from 1 (a removed entry leaves a
 * gap), each `prev_hash` equal to the previous `hash` (a removed or reordered entry breaks the link), and
 * each `hash` recomputed (an edited entry no longer matches). Names the first entry that fails. Entries that
 * name their `service` (a MACROSERVICE gateway's merged log) are checked as one chain per service, each in
 * its own order; the head is then the last entry's, and `heads` holds each service's.
 *
 * The chain has no key: whoever can write the table can remove or edit an entry and recompute every hash
 * after it, leaving a chain that holds; and removing the newest entries leaves a valid shorter one. Only a
 * head recorded earlier, somewhere the database's operators cannot write, tells: each of `recorded` must
 * still be in the chain with its hash, otherwise the verdict names its `seq` (the log was rewritten, or cut,
 * since it was recorded; docs/operators.md#the-audit-log).
 */
export async function verifyChain(
  entries: Iterable<AuditEntry> | AsyncIterable<AuditEntry>,
  recorded: readonly RecordedHead[] = [],
): Promise<ChainVerdict> {
  const heads = new Map<string | undefined, { seq: number; hash: string }>();
  const expected = new Map(recorded.map((h) => [`${h.service ?? ''}/${h.seq}`, h]));
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
    const key = `${entry.service ?? ''}/${entry.seq}`;
    const want = expected.get(key);
    if (want && want.hash !== entry.hash) {
      return broken(
        `entry ${at} does not match the head recorded (${formatRecordedHead(want)}): its hash is now ` +
          `${entry.hash}; the log was rewritten since`,
      );
    }
    expected.delete(key);
    head = { seq: entry.seq, hash: entry.hash };
    heads.set(entry.service, head);
  }
  // A recorded head past the end of its chain: the log was cut, or rewritten shorter.
  const merged = [...heads.keys()].some((service) => service !== undefined);
  for (const want of expected.values()) {
    const last = heads.get(want.service);
    const where = want.service === undefined ? '' : `${want.service}: `;
    if (!last && heads.size > 0 && merged === (want.service === undefined)) {
      return {
        ok: false,
        entries: count,
        seq: want.seq,
        headForm: true,
        problem: merged
          ? `the head recorded (${formatRecordedHead(want)}) names no service, and this log is a gateway's merged log, whose entries name their service: name it in the head recorded (<service>/<seq>:<hash>, as its check printed it)`
          : `the head recorded (${formatRecordedHead(want)}) names a service, and this log is one chain (its entries name none): pass <seq>:<hash>`,
      };
    }
    const ends = last ? `the log ends at entry ${last.seq}` : 'the log holds no entry';
    return {
      ok: false,
      entries: count,
      seq: want.seq,
      problem: `${where}entry ${want.seq} does not match the head recorded (${formatRecordedHead(want)}): ${ends}; the log was rewritten, or cut, since`,
    };
  }
  const named = [...heads].filter((pair): pair is [string, { seq: number; hash: string }] => !!pair[0]);
  return named.length === 0
    ? { ok: true, entries: count, head }
    : { ok: true, entries: count, head, heads: Object.fromEntries(named) };
}
