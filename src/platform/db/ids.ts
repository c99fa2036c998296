import { randomUUID } from 'node:crypto';
import { v7 } from 'uuid';

export const newId = (): string => randomUUID();

/**
 * A UUID whose leading bits are the time (UUIDv7): rows written in bulk with such keys append to the key's index
 * instead of landing in it at random (the access log's, docs/benchmark.md).
 */
export const newTimeOrderedId = (): string => v7();
