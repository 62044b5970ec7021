import type { AuthPlan } from '../config/plan';

/** A record the run created through the data API: where it lives and how to delete it. */
export interface CreatedRecord {
  doctype: string;
  /** The record's URL (`<apiUrl>/resource/<DocType>/<name>`). */
  url: string;
  /** Owner service, routed by header. */
  service: string;
  auth: AuthPlan;
}

/**
 * The records this generator created and has not deleted, so `--cleanup` can remove exactly what the run
 * added to the target's database (and a run without it can say how many it left).
 */
export class CreatedRecords {
  private readonly records = new Map<string, CreatedRecord>();

  /** Notes a record created by the run. */
  add(r: CreatedRecord): void {
    this.records.set(r.url, r);
  }

  /** Forgets a record the run deleted (or found gone). */
  remove(url: string): void {
    this.records.delete(url);
  }

  /** The records still there, oldest first. */
  list(): CreatedRecord[] {
    return [...this.records.values()];
  }

  get size(): number {
    return this.records.size;
  }
}
