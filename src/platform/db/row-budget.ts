import { badInput } from '../errors/domain-error';
import { takingTurns } from './sqlite-driver';

/** Reads one operation runs at once: a page and its count each take a connection. */
const CONCURRENT_READS = 2;

/**
 * Bytes of stored JSON that cost as much as a row. Parsed JSON takes up to about 21 times its text on the heap
 * (16 KiB of `[{},{},…]` took 340 KiB), so 128 bytes of it weigh about what a row with its joined parties does.
 */
const JSON_BYTES_PER_ROW = 128;

/** What reading one row that carries `jsonBytes` of JSON costs: the row, and its JSON by its size. */
export const rowsOfJson = (jsonBytes: number): number => 1 + Math.ceil(Math.max(0, jsonBytes) / JSON_BYTES_PER_ROW);

/**
 * What one operation may read: rows in total, counted while it runs (the estimate before execution assumes sizes
 * for nested lists; this holds the operation to what it really loads), and reads at once, so that an operation
 * of fifty aliased pages takes neither all the memory nor every database connection (on SQLite: the only one)
 * while the other requests wait. A row that carries large JSON costs more (`rowsOfJson`): the budget bounds the
 * memory an operation loads, not only its row count.
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
  read<T>(load: () => Promise<T>, rowsOf: (result: T) => number): Promise<T> {
    return this.inSlot(async () => {
      const result = await takingTurns(load);
      this.take(rowsOf(result));
      return result;
    });
  }

  /**
   * For what is large only once loaded (JSON): `measure` asks the database what the rows will cost, that is
   * counted, and only if it fits does `load` read them. Nothing over the budget reaches the heap.
   */
  readMeasured<T>(measure: () => Promise<number>, load: () => Promise<T>): Promise<T> {
    return this.inSlot(async () => {
      this.take(await takingTurns(measure));
      return takingTurns(load);
    });
  }

  private async inSlot<T>(work: () => Promise<T>): Promise<T> {
    if (this.reading < CONCURRENT_READS) this.reading++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
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
      throw badInput(
        `The operation read more than ${this.limit} rows, the limit per operation; ask for smaller pages or fewer nested lists`,
      );
    }
  }
}
