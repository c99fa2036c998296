import type { MetadataStorage } from '@mikro-orm/core';
import { setNewest } from '../../platform/bounded-map';
import type { Position } from './tender-cursor';

/**
 * Positions in lists, so that `skip` need not walk from the first tender: for a list (an audience revision, its
 * filters and its order), the position of the tender just before index N, for a few N. A page by `skip` starts
 * from the nearest kept index at or before its own, as a cursor does, and keeps where it began and ended, so a
 * client walking by `skip` (0, 50, 100, ...) or polling one deep page pays for a cursor's page, not the walk.
 * Kept per database (its ORM's metadata), at most MAX_LISTS lists of MAX_PER_LIST positions, oldest out first.
 */
const kept = new WeakMap<MetadataStorage, Map<string, Map<number, Position>>>();
const MAX_LISTS = 2_000;
const MAX_PER_LIST = 64;

interface KeptPosition {
  /** The index of the first tender after `position`. */
  index: number;
  position: Position;
}

/** The kept position nearest before `index` (or at it) in the list. */
export function nearestKept(metadata: MetadataStorage, list: string, index: number): KeptPosition | undefined {
  let nearest: KeptPosition | undefined;
  for (const [at, position] of kept.get(metadata)?.get(list) ?? []) {
    if (at <= index && (!nearest || at > nearest.index)) nearest = { index: at, position };
  }
  return nearest;
}

/** Keeps positions of a list, read at a revision that stood from before the read to after it. */
export function keepPositions(metadata: MetadataStorage, list: string, positions: readonly KeptPosition[]): void {
  if (positions.length === 0) return;
  let lists = kept.get(metadata);
  if (!lists) kept.set(metadata, (lists = new Map<string, Map<number, Position>>()));
  const ofList = lists.get(list) ?? new Map<number, Position>();
  setNewest(lists, list, ofList, MAX_LISTS);
  for (const { index, position } of positions) setNewest(ofList, index, position, MAX_PER_LIST);
}
