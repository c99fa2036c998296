import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BetterSqliteConnection, BetterSqlitePlatform, BetterSqliteSchemaHelper } from '@mikro-orm/better-sqlite';
import { Utils, type AnyEntity, type Dictionary, type EntityData, type LoggingOptions } from '@mikro-orm/core';
import {
  type AbstractSqlConnection,
  AbstractSqlDriver,
  BetterSqliteKnexDialect,
  type CheckDef,
  type Configuration,
  type Knex,
  type QueryResult,
} from '@mikro-orm/knex';
import type { Database, Statement } from 'better-sqlite3';
import { setNewest } from '../bounded-map';

/** Prepared statements kept per connection; the gateway has a few dozen shapes, a bound keeps odd ones from piling up. */
const STATEMENTS_KEPT = 512;

interface KnexQuery {
  sql: string;
  bindings?: unknown[];
  response?: unknown;
  context?: { lastID: number | bigint; changes: number };
}

const turnTaking = new AsyncLocalStorage<true>();

/**
 * Runs `read` so that on SQLite each of its statements first waits for a turn of the event loop. better-sqlite3
 * runs a statement on the process's one thread, and the reads of an operation follow one another in promise
 * continuations: without turns, the heaviest allowed operation would hold every other request, callback and
 * timer from its first statement to its last. Statement by statement, it takes turns with them, as the
 * connection's queue made it with an asynchronous driver. Only reads take turns: the short steps of callbacks,
 * authentication and the outbox would pay a turn per statement for nothing. On PostgreSQL this changes nothing.
 */
export function takingTurns<T>(read: () => Promise<T>): Promise<T> {
  return turnTaking.run(true, read);
}

/** What the dialect below uses of knex's better-sqlite3 client, which MikroORM exports untyped. */
interface KnexSqliteClient {
  acquireConnection(): Promise<Database>;
  _formatBindings(bindings: unknown[] | undefined): unknown[];
}
const KnexSqliteDialect = BetterSqliteKnexDialect as unknown as new (config: Knex.Config) => KnexSqliteClient;

/**
 * Knex's better-sqlite3 client, with two changes: statements of reads take turns (above), and each statement is
 * prepared once per SQL text and connection, not at every execution.
 */
class TurnTakingDialect extends KnexSqliteDialect {
  /**
   * The turn comes before the connection, not after: a statement waiting with it in hand would make every other
   * one wait a turn behind it. A transaction's statements do not come here (knex hands them the transaction's
   * connection), so a transaction runs through and holds the connection as briefly as it can.
   */
  override async acquireConnection(): Promise<Database> {
    if (turnTaking.getStore()) await nextTurn();
    return super.acquireConnection();
  }

  async _query(connection: Database, query: KnexQuery): Promise<KnexQuery> {
    if (!query.sql) throw new Error('The query is empty');
    const statement = prepared(connection, query.sql);
    const bindings = this._formatBindings(query.bindings);
    if (statement.reader) {
      query.response = statement.all(bindings);
      return query;
    }
    const result = statement.run(bindings);
    query.response = result;
    query.context = { lastID: result.lastInsertRowid, changes: result.changes };
    return query;
  }
}

// Kept by connection, not on the client: knex makes a transaction's client from the prototype, without its fields.
const preparedByConnection = new WeakMap<Database, Map<string, Statement>>();

function prepared(connection: Database, sql: string): Statement {
  let statements = preparedByConnection.get(connection);
  if (!statements) preparedByConnection.set(connection, (statements = new Map<string, Statement>()));
  // Touched on every use, so the one dropped is the least recently used.
  const statement = statements.get(sql) ?? connection.prepare(sql);
  setNewest(statements, sql, statement, STATEMENTS_KEPT);
  return statement;
}

/** A value SQLite binds as it is (better-sqlite3 refuses the rest; knex's client turns booleans into 1 and 0). */
const bindsAsItIs = (value: unknown): boolean =>
  value === null ||
  ['string', 'bigint', 'boolean'].includes(typeof value) ||
  (typeof value === 'number' && Number.isFinite(value)) ||
  Buffer.isBuffer(value);

/**
 * The statement with `?` placeholders and the values to bind, where MikroORM would write the values into the SQL
 * text (`Platform.formatQuery`): `??` becomes the quoted identifier, a list `?, ?` per element, a date its epoch
 * milliseconds, a plain object its JSON, undefined null, as MikroORM's SQLite platform writes them. Undefined when a
 * value is anything else (a raw fragment, a list of such), or the SQL escapes a `?`: those statements keep MikroORM's
 * inlining.
 */
function parameterised(
  sql: string,
  params: readonly unknown[],
  quoteIdentifier: (name: string) => string,
): { sql: string; bindings: unknown[] } | undefined {
  if (sql.includes('\\?')) return undefined;
  const bindings: unknown[] = [];
  let text = '';
  let next = 0;
  let from = 0;
  for (let at = sql.indexOf('?'); at !== -1; at = sql.indexOf('?', from)) {
    const identifier = sql[at + 1] === '?';
    const value = params[next++];
    text += sql.slice(from, at);
    from = at + (identifier ? 2 : 1);
    if (identifier) {
      if (typeof value !== 'string') return undefined;
      text += quoteIdentifier(value);
    } else if (Array.isArray(value)) {
      if (!value.every(bindsAsItIs)) return undefined;
      text += value.map(() => '?').join(', ');
      bindings.push(...(value as unknown[]));
    } else if (value === undefined || bindsAsItIs(value)) {
      text += '?';
      bindings.push(value ?? null);
    } else if (value instanceof Date) {
      // As MikroORM's SQLite platform writes a date: its epoch milliseconds.
      text += '?';
      bindings.push(value.getTime());
    } else if (Utils.isPlainObject(value)) {
      text += '?';
      bindings.push(JSON.stringify(value));
    } else {
      return undefined;
    }
  }
  if (next !== params.length) return undefined;
  return { sql: text + sql.slice(from), bindings };
}

class GatewaySqliteConnection extends BetterSqliteConnection {
  override createKnex(): void {
    this.client = this.createKnexClient(TurnTakingDialect as unknown as string);
    this.connected = true;
  }

  /**
   * MikroORM writes every value into the SQL text, so each statement had a text of its own: the prepared-statement
   * cache held hundreds of statements that never ran twice (15–20 MB of memory) and every statement was prepared
   * anew. Values are bound instead, so a statement is prepared once per shape (docs/benchmark.md#memory).
   */
  override async execute<T extends QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[] = EntityData<AnyEntity>[]>(
    queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[] = [],
    method: 'all' | 'get' | 'run' = 'all',
    ctx?: Knex.Transaction,
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    let sql = queryOrKnex;
    let values = params;
    if (Utils.isObject<Knex.QueryBuilder | Knex.Raw>(sql)) {
      ctx ??= (sql as unknown as { client: { transacting?: boolean } }).client.transacting
        ? (sql as unknown as Knex.Transaction)
        : undefined;
      const compiled = sql.toSQL();
      sql = compiled.sql;
      values = [...(compiled.bindings ?? [])];
    }
    sql = this.config.get('onQuery')(sql, values);
    const bound = values.length > 0 ? parameterised(sql, values, (name) => this.platform.quoteIdentifier(name)) : { sql, bindings: [] };
    // MikroORM's own path from the start: it applies onQuery itself.
    if (!bound) return super.execute<T>(queryOrKnex, params, method, ctx, loggerContext);
    await this.ensureConnection();
    return this.executeQuery(
      sql,
      async () => {
        const query = this.getKnex().raw(bound.sql, bound.bindings as Knex.RawBinding[]);
        if (ctx) query.transacting(ctx);
        return this.transformRawResult<T>(await query, method);
      },
      { query: sql, params: values, ...loggerContext },
    );
  }
}

/** An enum column's check as SQLite keeps it in the table's SQL: `` `role` text check (`role` in ('a', 'b', 'c')) ``. */
const ENUM_CHECK = /[`"[]([^`"\]]+)[`"\]] text check \([`"[][^`"\]]+[`"\]] in \(((?:\s*'(?:[^']|'')*'\s*,?)+)\)\)/gi;
const QUOTED_ITEM = /'((?:[^']|'')*)'/g;

/**
 * How MikroORM reads an existing SQLite schema, with two of its mistakes (6.6.16) corrected, so that comparing the
 * migrated database with the entities (`db:check-migrations`, `migration:create`) finds only real differences:
 * - an enum check of three or more items was read as its first and last item only, so every such column (the
 *   tender's status, a client's role, ...) looked changed and its table was rebuilt;
 * - foreign keys were keyed by column, not by constraint name, so every one looked dropped.
 */
class GatewaySqliteSchemaHelper extends BetterSqliteSchemaHelper {
  override async getEnumDefinitions(
    connection: AbstractSqlConnection,
    _checks: CheckDef[],
    tableName: string,
    _schemaName: string,
    ctx?: Knex.Transaction,
  ): Promise<Dictionary<string[]>> {
    const table = await connection.execute<{ sql: string }>(
      'select sql from sqlite_master where type = ? and name = ?',
      ['table', tableName],
      'get',
      ctx,
    );
    const enums: Dictionary<string[]> = {};
    for (const [, column, list] of table.sql.matchAll(ENUM_CHECK)) {
      enums[column] = [...list.matchAll(QUOTED_ITEM)].map(([, item]) => item.replace(/''/g, "'"));
    }
    return enums;
  }

  override mapForeignKeys(fks: unknown[], tableName: string): Dictionary {
    const byColumn = super.mapForeignKeys(fks, tableName) as Dictionary<{ constraintName: string }>;
    return Object.fromEntries(Object.values(byColumn).map((fk) => [fk.constraintName, fk]));
  }
}

class GatewaySqlitePlatform extends BetterSqlitePlatform {
  protected override readonly schemaHelper: BetterSqliteSchemaHelper = new GatewaySqliteSchemaHelper(this);
}

/** MikroORM's better-sqlite3 driver on the dialect above. */
export class SqliteDriver extends AbstractSqlDriver<GatewaySqliteConnection, BetterSqlitePlatform> {
  constructor(config: Configuration) {
    super(config, new GatewaySqlitePlatform(), GatewaySqliteConnection, ['knex', 'better-sqlite3']);
  }
}
