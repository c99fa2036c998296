import { badInput } from '../errors/domain-error';

/**
 * The rows one operation may read in total, counted while it runs. The estimate before execution assumes sizes
 * for nested lists; this holds the operation to what it really loads.
 */
export class RowBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Rows that may still be read: a query asks for one more, so that reading past the limit shows. */
  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  take(rows: number): void {
    this.used += rows;
    if (this.used > this.limit) {
      throw badInput(`The operation read more than ${this.limit} rows, the limit per operation; ask for smaller pages or fewer nested lists`);
    }
  }
}
