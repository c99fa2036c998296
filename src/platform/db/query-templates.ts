import { RawQueryFragment, raw, type EntityManager } from '@mikro-orm/core';
import type { EntityManager as SqlEntityManager, Knex } from '@mikro-orm/knex';
import { setNewest } from '../bounded-map';

/** A statement as the query builder wrote it, and where each of its bindings comes from. */
interface Template {
  sql: string;
  /** A binding's source: the index of a parameter, or a value the shape itself binds. */
  slots: readonly ({ parameter: number } | { constant: unknown })[];
}

/** Up to this many shapes are kept; a read has a few dozen (role, filters given, paged or not). */
const SHAPES_KEPT = 256;

/**
 * Statements built by MikroORM's query builder once per shape and then run with each request's values. Building
 * and compiling a query (criteria nodes, joins, knex's compiler) cost a seventh of one tender's request
 * (docs/benchmark.md); the statement it writes depends only on the shape of its inputs: the filter's keys and
 * operators, list lengths, the values' types. So the shape is built once with stand-in values, each found again
 * among the bindings, and a request binds its own values in their places. A shape whose stand-ins do not come
 * back as bindings (a value written into the SQL, or converted on the way) is never templated; neither is one
 * with a value that is not a string or a number (dates, booleans, entities, sub-queries): those run through the
 * query builder as before, and only lose the saving.
 */
export class QueryTemplates {
  private readonly shapes = new Map<string, Template | null>();

  /**
   * Runs the statement `build` makes of `parameters` (plain objects and lists of strings and numbers, raw
   * fragments as keys), under `literal` (what shapes the statement as it is: an order, a flag), and returns its
   * rows as the driver gives them.
   */
  async rows<P>(
    em: EntityManager,
    literal: string,
    parameters: P,
    build: (parameters: P) => Knex.QueryBuilder,
  ): Promise<Record<string, unknown>[]> {
    const values: (string | number)[] = [];
    const rawKeys: string[] = [];
    const shape = shapeOf(parameters, values, rawKeys);
    const key = shape === undefined ? undefined : `${literal}|${shape}`;
    let template = key === undefined ? null : this.shapes.get(key);
    if (key !== undefined && template === undefined) {
      template = templateOf(parameters, values.length, build);
      setNewest(this.shapes, key, template, SHAPES_KEPT);
    }
    const connection = (em as SqlEntityManager).getConnection();
    const context = em.getTransactionContext<Knex.Transaction>();
    if (!template) {
      const { sql, bindings } = build(parameters).toSQL();
      return connection.execute(sql, [...bindings], 'all', context);
    }
    // MikroORM keeps a raw fragment used as a key until a query consumes it; a templated run consumes none.
    for (const key of rawKeys) RawQueryFragment.getKnownFragment(key);
    const bindings = template.slots.map((slot) => ('parameter' in slot ? values[slot.parameter] : slot.constant));
    return connection.execute(template.sql, bindings, 'all', context);
  }
}

/**
 * Stand-ins no real value is taken for: a string no client sends, numbers far past any page, spaced so that one
 * changed on the way (a limit plus one) is never taken for another.
 */
const STAND_IN_PREFIX = '\u0000query-template-';
const STAND_IN_NUMBER = 7_340_000_000;
const STAND_IN_SPACING = 1_000;

/**
 * The shape of `value` as a string (undefined when it cannot be templated), its strings and numbers appended to
 * `values` in the order the walk meets them, and the keys of its raw fragments to `rawKeys`.
 */
function shapeOf(value: unknown, values: (string | number)[], rawKeys: string[]): string | undefined {
  if (typeof value === 'string') {
    values.push(value);
    return 's';
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return undefined;
    values.push(value);
    return 'n';
  }
  if (value === null) return 'null';
  if (value === undefined) return 'u';
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) {
      const shape = shapeOf(item, values, rawKeys);
      if (shape === undefined) return undefined;
      items.push(shape);
    }
    return `[${items.join(',')}]`;
  }
  if (!isPlainObject(value)) return undefined;
  const entries: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    let name = key;
    if (RawQueryFragment.isKnownFragment(key)) {
      const fragment = RawQueryFragment.getKnownFragment(key, false)!;
      rawKeys.push(key);
      const params = shapeOf(fragment.params, values, rawKeys);
      if (params === undefined) return undefined;
      name = `raw(${fragment.sql})${params}`;
    }
    const shape = shapeOf(item, values, rawKeys);
    if (shape === undefined) return undefined;
    entries.push(`${JSON.stringify(name)}:${shape}`);
  }
  return `{${entries.join(',')}}`;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null);

/** The same structure with every string and number replaced by its stand-in, raw keys by fresh fragments. */
function standIns(value: unknown, next: { index: number }): unknown {
  if (typeof value === 'string') return `${STAND_IN_PREFIX}${next.index++}`;
  if (typeof value === 'number') return STAND_IN_NUMBER + STAND_IN_SPACING * next.index++;
  if (Array.isArray(value)) return value.map((item) => standIns(item, next));
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    let name = key;
    if (RawQueryFragment.isKnownFragment(key)) {
      const fragment = RawQueryFragment.getKnownFragment(key, false)!;
      name = String(raw(fragment.sql, standIns(fragment.params, next) as unknown[]));
    }
    copy[name] = standIns(item, next);
  }
  return copy;
}

/** The statement of this shape with each binding traced to its parameter, or null when one cannot be traced. */
function templateOf<P>(parameters: P, count: number, build: (parameters: P) => Knex.QueryBuilder): Template | null {
  const { sql, bindings } = build(standIns(parameters, { index: 0 }) as P).toSQL();
  const found = new Set<number>();
  const slots = bindings.map((binding) => {
    const parameter = standInIndex(binding, count);
    if (parameter === undefined) return { constant: binding };
    found.add(parameter);
    return { parameter };
  });
  return found.size === count ? { sql, slots } : null;
}

function standInIndex(binding: unknown, count: number): number | undefined {
  const index =
    typeof binding === 'string'
      ? binding.startsWith(STAND_IN_PREFIX) && /^\d+$/.test(binding.slice(STAND_IN_PREFIX.length))
        ? Number(binding.slice(STAND_IN_PREFIX.length))
        : NaN
      : typeof binding === 'number'
        ? (binding - STAND_IN_NUMBER) / STAND_IN_SPACING
        : NaN;
  return Number.isInteger(index) && index >= 0 && index < count ? index : undefined;
}
