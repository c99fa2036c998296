import type { EntityManager } from '@mikro-orm/core';

/**
 * Takes the tender's row lock in the caller's transaction with a write that changes nothing (its version included):
 * the row lock on PostgreSQL, the write lock on SQLite. Whoever counts what a tender holds (quote requests,
 * documents) under it counts what the one before it committed. A read first would start a snapshot that another
 * instance's write makes stale, and the upgrade would fail at once.
 */
export async function lockTenderRow(tx: EntityManager, tenderId: string): Promise<void> {
  await tx.getConnection().execute('update tender set status = status where id = ?', [tenderId], 'run', tx.getTransactionContext());
}
