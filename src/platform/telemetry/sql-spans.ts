import type { Attributes, Context, Span, SpanOptions, Tracer } from '@opentelemetry/api';
import { KnexInstrumentation } from '@opentelemetry/instrumentation-knex';

/**
 * SQL spans by OpenTelemetry's stable database conventions, on both engines (knex's `pg` client and the gateway's
 * better-sqlite3 dialect). knex's instrumentation names a span `{knex method} {database}`: `raw <the SQLite file's
 * path>` for every statement MikroORM runs, with `db.operation.name` "raw", `db.system.name` "better-sqlite3" and, on
 * PostgreSQL, the values MikroORM writes into the SQL text in `db.query.text`. Here each span is named
 * `{db.operation.name} {db.collection.name}` (`SELECT tender`), or the operation alone where the statement names no
 * table, or `db.system.name` where it has no operation; the operation and the table are read from the statement (the
 * first table it names, as the conventions allow), the text keeps no literal (each is a `?`), the system is the
 * conventions' `sqlite` or `postgresql`, and SQLite's `db.namespace` (a file path) is left out.
 */

/** The conventions' `db.system.name` for knex's client names. */
const SYSTEMS: Record<string, string> = {
  'better-sqlite3': 'sqlite',
  sqlite3: 'sqlite',
  sqlite: 'sqlite',
  pg: 'postgresql',
  postgresql: 'postgresql',
};

/** How much of a statement a span keeps (knex's own default cut it at about 1 KiB too). */
const QUERY_TEXT_CHARS = 1024;

/**
 * What must not reach a span: string literals (standard, E'' with backslash escapes, X'' blobs; one cut off at the
 * end of the text too) and numbers. Quoted identifiers are matched first so that nothing inside them is taken
 * for a literal, and stay.
 */
const TOKENS =
  /("(?:[^"]|"")*"|`(?:[^`]|``)*`)|((?<![\w$])[Ee]'(?:[^'\\]|\\.|'')*'|(?<![\w$])[Xx]'[^']*'|'(?:[^']|'')*'|'[^]*$|(?<![\w$.])\d+(?:\.\d+)?(?:[Ee][+-]?\d+)?\b)/g;

const sanitised = (sql: string): string => sql.replace(TOKENS, (_match, identifier: string | undefined) => identifier ?? '?');

/** A quoted identifier without its quotes, or a bare one as it is. */
const unquoted = (name: string): string =>
  name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name.startsWith('`') ? name.slice(1, -1).replace(/``/g, '`') : name;

const IDENTIFIER = String.raw`((?:"(?:[^"]|"")+"|\x60(?:[^\x60]|\x60\x60)+\x60|[A-Za-z_][\w$]*)(?:\.(?:"(?:[^"]|"")+"|\x60(?:[^\x60]|\x60\x60)+\x60|[A-Za-z_][\w$]*))?)`;
const TABLE_AFTER: Record<string, RegExp> = {
  SELECT: new RegExp(String.raw`\bfrom\s+${IDENTIFIER}`, 'i'),
  INSERT: new RegExp(String.raw`\binsert\s+into\s+${IDENTIFIER}`, 'i'),
  UPDATE: new RegExp(String.raw`\bupdate\s+${IDENTIFIER}`, 'i'),
  DELETE: new RegExp(String.raw`\bdelete\s+from\s+${IDENTIFIER}`, 'i'),
};

/** The statement's operation: its first keyword, or after a WITH the first keyword outside the parentheses. */
function operationOf(sql: string): string | undefined {
  const first = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase();
  if (first !== 'WITH') return first;
  let depth = 0;
  for (const [token] of sql.matchAll(/[()]|\b(?:select|insert|update|delete)\b/gi)) {
    if (token === '(') depth++;
    else if (token === ')') depth--;
    else if (depth === 0) return token.toUpperCase();
  }
  return undefined;
}

function described(name: string, options: SpanOptions): [string, SpanOptions] {
  const attributes: Attributes = { ...options.attributes };
  const system = SYSTEMS[String(attributes['db.system.name'])] ?? attributes['db.system.name'];
  if (system !== undefined) attributes['db.system.name'] = system;
  if (system === 'sqlite') delete attributes['db.namespace'];
  const text = attributes['db.query.text'];
  if (typeof text !== 'string') return [name, { ...options, attributes }];
  // Parsed from the text without its literals: a table name inside a string is no table.
  const statement = sanitised(text);
  const operation = operationOf(statement);
  const table = operation && TABLE_AFTER[operation]?.exec(statement)?.[1];
  const collection = table ? table.split('.').map(unquoted).join('.') : undefined;
  attributes['db.query.text'] = statement.length > QUERY_TEXT_CHARS ? `${statement.slice(0, QUERY_TEXT_CHARS)}..` : statement;
  if (operation) attributes['db.operation.name'] = operation;
  else delete attributes['db.operation.name'];
  if (collection) attributes['db.collection.name'] = collection;
  else delete attributes['db.collection.name'];
  const spanName = operation ? (collection ? `${operation} ${collection}` : operation) : String(system ?? name);
  return [spanName, { ...options, attributes }];
}

/** knex's instrumentation, its spans described as above before they start (its own code names them otherwise). */
export class SqlInstrumentation extends KnexInstrumentation {
  private described?: { of: Tracer; tracer: Tracer };

  constructor() {
    // The whole text reaches `described`, which cuts it after taking its literals out.
    super({ maxQueryLength: Number.MAX_SAFE_INTEGER });
  }

  protected override get tracer(): Tracer {
    const tracer = super.tracer;
    if (this.described?.of !== tracer) {
      const startSpan = (name: string, options: SpanOptions = {}, context?: Context): Span =>
        tracer.startSpan(...described(name, options), context);
      this.described = { of: tracer, tracer: { startSpan, startActiveSpan: tracer.startActiveSpan.bind(tracer) } };
    }
    return this.described.tracer;
  }
}
