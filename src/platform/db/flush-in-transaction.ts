import type { EntityManager } from '@mikro-orm/core';

/**
 * Flushes the EntityManager's changes and runs `alongside` in one transaction on that same EntityManager (its
 * entities stay managed, unlike in `em.transactional`'s fork): their writes commit together or not at all.
 */
export async function flushInTransaction(em: EntityManager, alongside: () => Promise<void>): Promise<void> {
  await em.begin();
  try {
    await em.flush();
    await alongside();
    await em.commit();
  } catch (error) {
    await em.rollback();
    throw error;
  }
}
