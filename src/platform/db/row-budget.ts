import { badInput } from '../errors/domain-error';
import { takingTurns } from './sqlite-driver';

/** Reads one operation runs at once: a page and its count each take a connection. */
const CONCURRENT_READS = 2;

/**
 * What one operation may read: rows in total, counted while it runs (the estimate before execution assumes sizes
 * for nested lists; this holds the operation to what it really loads), and reads at once, so that an operation
 * of fifty aliased pages takes neither all the memory nor every database connection (on SQLite: the only one)
 * while the other requests wait.
 */
export class RowBudget {
  private used = 0;
  private reading = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  /** Rows that may still be read: a query asks for one more, so that reading past the limit shows. */
  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  /** Runs `load` when a read slot is free and counts the rows it returned. */
  async read<T>(load: () => Promise<T>, rowsOf: (result: T) => number): Promise<T> {
    if (this.reading < CONCURRENT_READS) this.reading++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      const result = await takingTurns(load);
      this.take(rowsOf(result));
      return result;
    } finally {
      // The slot passes straight to the next read in line; otherwise it comes free.
      const next = this.waiting.shift();
      if (next) next();
      else this.reading--;
    }
  }

  private take(rows: number): void {
    this.used += rows;
    if (this.used > this.limit) {
      throw badInput(`The operation read more than ${this.limit} rows, the limit per operation; ask for smaller pages or fewer nested lists`);
    }
  }
}
