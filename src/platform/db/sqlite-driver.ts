import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BetterSqliteConnection, BetterSqlitePlatform } from '@mikro-orm/better-sqlite';
import { AbstractSqlDriver, BetterSqliteKnexDialect, type Configuration } from '@mikro-orm/knex';
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

/**
 * Knex's better-sqlite3 client, with two changes: statements of reads take turns (above), and each statement is
 * prepared once per SQL text and connection, not at every execution.
 */
class TurnTakingDialect extends BetterSqliteKnexDialect {
  /**
   * The turn comes before the connection, not after: a statement waiting with it in hand would make every other
   * one wait a turn behind it. A transaction's statements do not come here (knex hands them the transaction's
   * connection), so a transaction runs through and holds the connection as briefly as it can.
   */
  async acquireConnection(): Promise<Database> {
    if (turnTaking.getStore()) await nextTurn();
    return super.acquireConnection() as Promise<Database>;
  }

  async _query(connection: Database, query: KnexQuery): Promise<KnexQuery> {
    if (!query.sql) throw new Error('The query is empty');
    const statement = prepared(connection, query.sql);
    const bindings = this._formatBindings(query.bindings) as unknown[];
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
  if (!statements) preparedByConnection.set(connection, (statements = new Map()));
  // Touched on every use, so the one dropped is the least recently used.
  const statement = statements.get(sql) ?? connection.prepare(sql);
  setNewest(statements, sql, statement, STATEMENTS_KEPT);
  return statement;
}

class GatewaySqliteConnection extends BetterSqliteConnection {
  override createKnex(): void {
    this.client = this.createKnexClient(TurnTakingDialect as unknown as string);
    this.connected = true;
  }
}

/** MikroORM's better-sqlite3 driver on the dialect above. */
export class SqliteDriver extends AbstractSqlDriver<GatewaySqliteConnection, BetterSqlitePlatform> {
  constructor(config: Configuration) {
    super(config, new BetterSqlitePlatform(), GatewaySqliteConnection, ['knex', 'better-sqlite3']);
  }
}
