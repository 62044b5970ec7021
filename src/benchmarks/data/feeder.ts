import type { DataPlan } from '../config/plan';
import type { Shard } from '../engine/types';
import type { DataRow } from './parse-data';

/**
 * Hands out the rows of one scenario's data file to its iterations on one generator thread. Threads
 * take disjoint shares (row `i` goes to thread `i % count`), so `unique` never gives a row twice in the
 * whole run and `sequential` spreads the file evenly. `next` returns undefined once `unique` rows are
 * used up: the caller records that iteration as an error (`data_exhausted`), loudly.
 */
export class DataFeeder {
  private readonly rows: DataRow[];
  private i = 0;

  constructor(
    readonly plan: DataPlan,
    shard: Shard,
  ) {
    this.rows = plan.rows.filter((_, i) => i % shard.count === shard.index);
    // A thread with no share of a small file still walks the whole file (except for unique rows).
    if (this.rows.length === 0 && plan.mode !== 'unique') this.rows = plan.rows;
  }

  /** The next row, or undefined when `unique` rows ran out. */
  next(): DataRow | undefined {
    if (this.rows.length === 0) return undefined;
    if (this.plan.mode === 'random') return this.rows[Math.floor(Math.random() * this.rows.length)];
    if (this.plan.mode === 'unique') return this.rows[this.i++];
    const row = this.rows[this.i % this.rows.length];
    this.i++;
    return row;
  }

  /** Rows handed out so far. */
  get used(): number {
    return this.plan.mode === 'unique' ? Math.min(this.i, this.rows.length) : this.i;
  }
}
