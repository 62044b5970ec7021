/**
 * What this process knows of each DocType's number of records on an embedded database, which no other
 * process writes (docs/performance.md#lists-on-large-tables): a lower bound, from the last count less the
 * records deleted since. Creates leave it as it is (it stays a lower bound) and a delete lowers it even when
 * its transaction rolls back, so it never claims more records than there are. While it exceeds the list's
 * exact-count bound, an unfiltered list answers "1,000+" without counting again.
 */
export class TotalBounds {
  readonly #atLeast = new Map<string, number>();
  /** Records of each DocType this process deleted, ever: what a count that ran meanwhile may have missed. */
  readonly #deletes = new Map<string, number>();

  /**
   * Starts a count of `doctype`; call the result with what the count found. Records deleted while it ran are
   * taken off it, as the count may have seen them or not.
   */
  counting(doctype: string): (count: number) => void {
    const before = this.#deletes.get(doctype) ?? 0;
    return (count) => {
      this.#atLeast.set(doctype, count - ((this.#deletes.get(doctype) ?? 0) - before));
    };
  }

  /** A record of `doctype` was deleted. */
  deleted(doctype: string): void {
    this.#deletes.set(doctype, (this.#deletes.get(doctype) ?? 0) + 1);
    const count = this.#atLeast.get(doctype);
    if (count !== undefined) this.#atLeast.set(doctype, count - 1);
  }

  /** Whether `doctype` is known to hold more than `bound` records. */
  exceeds(doctype: string, bound: number): boolean {
    return (this.#atLeast.get(doctype) ?? 0) > bound;
  }
}
