import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { UrlAllowList } from './http/url-allow-list';
import { LOG_LEVELS, type LogLevel } from './logger';

export interface Config {
  nodeEnv: string;
  port: number;
  /** The interface to listen on (an address or host name); undefined: every interface. */
  host: string | undefined;
  /** A SQLite file path, `:memory:`, or `postgres://user@host:port/database`. */
  databaseUrl: string;
  /**
   * DATABASE_LISTEN_URL (default: DATABASE_URL) on PostgreSQL: where the token standing's LISTEN connection goes. A
   * session of its own, so it must reach PostgreSQL directly when DATABASE_URL goes through a transaction pooler
   * (PgBouncer), which hands the server connection to someone else after each transaction. Undefined on SQLite.
   */
  databaseListenUrl: string | undefined;
  dataDir: string;
  /** JWT_SECRET; null outside production: `main` then keeps a generated one in the data folder (auth/jwt-secret.ts). */
  jwtSecret: string | null;
  jwtIssuer: string;
  jwtAudience: string;
  /** seconds */
  tokenDefaultTtl: number;
  /** seconds */
  tokenMaxTtl: number;
  /** ms between reconciles of the in-memory token standing with the database (the bound across instances without NOTIFY) */
  tokenStandingReconcileMs: number;
  /** failed token requests per client IP within `authRateWindow` before 429 */
  authRateLimit: number;
  /** seconds */
  authRateWindow: number;
  /** seed demo data and print demo credentials when the database is empty */
  demo: boolean;
  logLevel: LogLevel;
  /** Browser origins allowed by CORS; empty: no CORS headers at all. */
  corsOrigins: string[];
  /** Requests per client (the API client of a valid token, else the address) per minute, then 429. */
  rateLimitPerMinute: number;
  /** Requests per address per minute for the explorer's and Swagger UI's pages and files (and /openapi.json), then 429. */
  staticRateLimitPerMinute: number;
  /** Requests per address per minute to the pages for people (/questionnaire, /underwriting), then a 429 page. */
  pageRateLimitPerMinute: number;
  /** Requests per link (its token) per minute to its page, from any address, then a 429 page. */
  pageLinkRateLimitPerMinute: number;
  /** Where rate-limit counters live: `database` (shared by every instance) or `memory` (this process only). */
  rateLimitStore: 'database' | 'memory';
  /** How long an instance may tally a client's requests before sending them to the shared counter (0: at once). */
  rateLimitSyncMs: number;
  /**
   * Express `trust proxy`: which proxies' X-Forwarded-For names the client's address (rate limits key on it).
   * false (default): none, the socket's peer is the client; a number: that many hops; a list: those addresses.
   */
  trustProxy: boolean | number | string[];
  /** A request still unanswered after this many ms gets a 503. */
  requestTimeoutMs: number;
  /** On SIGTERM/SIGINT, how long requests in flight may take to finish before their connections are closed, ms. */
  shutdownGraceMs: number;
  quotes: QuoteDispatchConfig;
  webhooks: WebhookDeliveryConfig;
  mail: MailConfig;
  graphql: OperationLimitsConfig;
  /**
   * KEPT_RESPONSES_BYTES: the REST tender reads' answers kept per audience, query and feed revision, at most this
   * many bytes in all (the least recently used out first); 0: none kept.
   */
  keptResponsesBytes: number;
  /**
   * Whether traces are exported (`tracingEnabled`): the REST tender reads then take Express's router, whose
   * instrumentation names their spans by the matched route, instead of the direct lane (api/http/direct-lane.ts).
   */
  tracing: boolean;
  documents: DocumentsConfig;
  accessLog: AccessLogConfig;
  privacy: PrivacyConfig;
  /** Demo mode: where the bundled insurer simulator listens (0 = off). */
  simPort: number;
}

/** How the gateway talks to insurer systems (DESIGN 3, quotation integration). */
export interface QuoteDispatchConfig {
  /** Timeout of one call to an insurer system, ms. */
  timeoutMs: number;
  /** Attempts per call (first try included) before the quote request is FAILED. */
  maxAttempts: number;
  /** Backoff before retry n: min(maxMs, baseMs * 2^(n-1)) with full jitter; Retry-After wins when longer. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** How often the dispatcher looks for due work when nothing wakes it, ms. */
  pollIntervalMs: number;
  /** How long one dispatcher owns a claimed quote request before another may take it over, ms. */
  leaseMs: number;
  /** Quote requests handled at once by one dispatcher. */
  concurrency: number;
  /** Of those, at most this many for one insurer: slow insurers hold a share of the slots, never all of them. */
  concurrencyPerInsurer: number;
  /** Which insurer URLs and addresses may be called (`INSURER_URL_ALLOW`; special-purpose addresses refused in production). */
  urlAllowList: UrlAllowList;
  /** QUOTE_VALIDITY_ZONE: a quote valid until a date is valid until the end of that day in this IANA time zone. */
  validityZone: string;
  /** QUOTE_EXPIRY_WARNING: how long before a quote's validity ends its broker and insurer hear QUOTE_EXPIRING, ms. */
  expiryWarningMs: number;
  /** QUOTE_EXPIRY_INTERVAL_MS: how often each instance expires quotes past their validity (at most this late), ms. */
  expiryIntervalMs: number;
  /** SUBJECTIVITY_SWEEP_MS: how often each instance looks for overdue subjectivities and unanswered orders, ms. */
  subjectivitySweepMs: number;
  /** COVER_ORDER_REMINDER: working days (Monday to Friday, no holidays) an order waits for its answer before COVER_ORDER_OVERDUE. */
  coverOrderReminderDays: number;
  /** RENEWAL_SWEEP_MS: how often each instance raises the renewal reminders that came due (docs/renewals.md), ms. */
  renewalSweepMs: number;
  /** RENEWAL_LEAD_DAYS: how many days before the notice deadline RENEWAL_DUE is raised. */
  renewalLeadDays: number;
}

/** How tender events reach partners' webhook endpoints (docs/webhooks.md). */
export interface WebhookDeliveryConfig {
  /** The whole exchange with an endpoint, ms. */
  timeoutMs: number;
  /** The wait before each retry, ms (jittered by up to a tenth either way); after the last one a delivery FAILED. */
  retrySchedule: number[];
  pollIntervalMs: number;
  leaseMs: number;
  /**
   * Deliveries in hand at once; of those at most this many for one API client (its endpoints together), and
   * this many for one endpoint: one client's slow endpoints hold a share of the slots, never all of them.
   */
  concurrency: number;
  concurrencyPerClient: number;
  concurrencyPerEndpoint: number;
  /** Deliveries one API client may have replays put back in a rolling 24 hours. */
  replayPerDay: number;
  /** How long finished deliveries stay in the log (and can be replayed), ms. */
  retentionMs: number;
  /** After a secret rotation, how long the previous secret still signs too, ms. */
  secretGraceMs: number;
  /**
   * Which endpoint URLs may be called (`WEBHOOK_URL_ALLOW`, same syntax as INSURER_URL_ALLOW). Partners choose
   * these URLs, so special-purpose addresses (private, loopback, link-local, ...) are refused in every environment
   * unless listed as addresses; demo mode lists 127.0.0.1 for the bundled simulator, an exception that leaves every
   * public host allowed.
   */
  urlAllowList: UrlAllowList;
  /** Only https URLs (production). */
  httpsOnly: boolean;
}

/** E-mail to people without an integration (docs/people.md, "E-mail"). */
export interface MailConfig {
  /** SMTP_URL: the SMTP server, `smtp://host:port` or `smtps://user:password@host:port`; null: mail is off, nothing is recorded. */
  smtpUrl: string | null;
  /** MAIL_FROM: the sender every mail names. */
  from: string;
  /** MAIL_RETRY_SCHEDULE: the wait before each retry, ms (jittered by up to a tenth); after the last one a mail is FAILED. */
  retrySchedule: number[];
  pollIntervalMs: number;
  leaseMs: number;
  /** MAIL_TIMEOUT_MS: connecting, greeting and each SMTP command, ms. */
  timeoutMs: number;
  /** PUBLIC_URL: the gateway's address the mails link to; null: no link. */
  publicUrl: string | null;
  /** MAIL_DIGEST_HOUR: the hour (0-23, Europe/Berlin) the daily digests are made. */
  digestHour: number;
  /** MAIL_RETENTION: how long sent and failed mails (addresses among them) are kept, ms. */
  retentionMs: number;
}

/** Who read a customer's data (docs/privacy.md). */
interface AccessLogConfig {
  /** ACCESS_LOG: record reads of personal data (on by default; off only to measure its cost). */
  enabled: boolean;
  /** ACCESS_LOG_RETENTION: how long a record is kept, ms. */
  retentionMs: number;
  /** ACCESS_LOG_FLUSH_MS: how long a read may wait in the instance's buffer before its batch is written. */
  flushMs: number;
}

/** A calendar period: `10y`, `18mo`, `90d`. */
export interface Period {
  amount: number;
  unit: 'y' | 'mo' | 'd';
}

/** Storage limitation of personal data (docs/privacy.md). */
interface PrivacyConfig {
  /**
   * RETENTION_PERSONAL_DATA: how long after its tenders ended (CLOSED or SUCCESSFUL) a customer's personal data is
   * kept before the retention sweep erases it; null (the default): kept until erased on request.
   */
  retention: Period | null;
  /** RETENTION_SWEEP_INTERVAL_MS: how often each instance looks for customers due for erasure, ms. */
  sweepIntervalMs: number;
}

/** Where a tender's documents live, and their limits (docs/documents.md). */
export interface DocumentsConfig {
  /** DOCUMENT_STORE: `filesystem` (a folder under DATA_DIR) or an S3-compatible bucket, `s3://bucket/prefix`. */
  store: { kind: 'filesystem'; dir: string } | { kind: 's3'; bucket: string; prefix: string; s3: S3Settings };
  /**
   * The stores documents written earlier may name (each document names its own): the filesystem store's folder
   * (DATA_DIR/documents) and the S3 connection settings (DOCUMENT_S3_*), whichever store DOCUMENT_STORE names.
   */
  filesystemDir: string;
  s3: S3Settings;
  /** DOCUMENT_MAX_BYTES: the largest document accepted. */
  maxBytes: number;
  /** How long an upload URL and a download link stay valid, ms (at most 15 minutes). */
  linkTtlMs: number;
  /**
   * PUBLIC_URL: the gateway's address as clients reach it, for upload URLs and download links; unset, the
   * request's own origin.
   */
  publicUrl: string | null;
  /** How many uploads run at once and how slow one may be (docs/documents.md, "Uploads in flight"). */
  uploads: UploadLimits;
}

/** The bounds of document uploads in one process: what thousands of slow uploads can hold of its memory. */
export interface UploadLimits {
  /** DOCUMENT_UPLOAD_CONCURRENCY: uploads receiving bytes at once in this process; more are answered 503. */
  concurrency: number;
  /** DOCUMENT_UPLOAD_CONCURRENCY_PER_CLIENT: of those, at most this many of the slots of one API client. */
  concurrencyPerClient: number;
  /** DOCUMENT_UPLOAD_MIN_RATE: bytes per second an upload must arrive at, measured over each window below. */
  minBytesPerSecond: number;
  /** DOCUMENT_UPLOAD_RATE_WINDOW: the window the rate is measured over, ms. */
  rateWindowMs: number;
}

interface S3Settings {
  /** DOCUMENT_S3_ENDPOINT: an S3-compatible server's URL; unset, AWS's endpoint of the region. */
  endpoint: string | null;
  region: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** DOCUMENT_S3_FORCE_PATH_STYLE: bucket in the path rather than the host name (most S3-compatible servers). */
  forcePathStyle: boolean;
}

function s3Settings(env: Env): S3Settings {
  const endpoint = env.DOCUMENT_S3_ENDPOINT || null;
  if (endpoint && !/^https?:\/\/[^/\s]+\/?$/.test(endpoint)) {
    throw new ConfigError(`DOCUMENT_S3_ENDPOINT must be an origin such as https://s3.example, got "${endpoint}"`);
  }
  return {
    endpoint,
    region: env.DOCUMENT_S3_REGION || 'us-east-1',
    accessKeyId: env.DOCUMENT_S3_ACCESS_KEY_ID || null,
    secretAccessKey: env.DOCUMENT_S3_SECRET_ACCESS_KEY || null,
    forcePathStyle: boolean(env, 'DOCUMENT_S3_FORCE_PATH_STYLE', endpoint !== null),
  };
}

function documentStore(env: Env, dataDir: string): DocumentsConfig['store'] {
  const raw = env.DOCUMENT_STORE || 'filesystem';
  if (raw === 'filesystem') return { kind: 'filesystem', dir: join(dataDir, 'documents') };
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/([\w\-./]*))?$/.exec(raw);
  if (!match) throw new ConfigError(`DOCUMENT_STORE must be filesystem or s3://bucket/prefix, got "${raw}"`);
  return { kind: 's3', bucket: match[1], prefix: (match[2] ?? '').replace(/^\/+|\/+$/g, ''), s3: s3Settings(env) };
}

/** Issue 28: an upload URL or a download link is valid 15 minutes at most. */
function linkTtl(env: Env): number {
  const ms = durations(env, 'DOCUMENT_LINK_TTL', '15m')[0];
  if (ms < 1000 || ms > 15 * 60_000) throw new ConfigError(`DOCUMENT_LINK_TTL must be between 1s and 15m, got "${env.DOCUMENT_LINK_TTL}"`);
  return ms;
}

function uploadLimits(env: Env): UploadLimits {
  const limits: UploadLimits = {
    concurrency: integer(env, 'DOCUMENT_UPLOAD_CONCURRENCY', 64, 1, 10_000),
    concurrencyPerClient: integer(env, 'DOCUMENT_UPLOAD_CONCURRENCY_PER_CLIENT', 8, 1, 10_000),
    minBytesPerSecond: integer(env, 'DOCUMENT_UPLOAD_MIN_RATE', 16 * 1024, 1, 1024 * 1024 * 1024),
    rateWindowMs: durations(env, 'DOCUMENT_UPLOAD_RATE_WINDOW', '10s')[0],
  };
  if (limits.rateWindowMs < 1000 || limits.rateWindowMs > 600_000)
    throw new ConfigError(`DOCUMENT_UPLOAD_RATE_WINDOW must be between 1s and 10m, got "${env.DOCUMENT_UPLOAD_RATE_WINDOW}"`);
  if (limits.concurrencyPerClient > limits.concurrency)
    throw new ConfigError('DOCUMENT_UPLOAD_CONCURRENCY_PER_CLIENT must not exceed DOCUMENT_UPLOAD_CONCURRENCY');
  return limits;
}

/** One duration, at least a day: a shorter one would sweep records before anyone could read them. */
function accessLogRetention(env: Env): number {
  const ms = durations(env, 'ACCESS_LOG_RETENTION', '400d');
  if (ms.length !== 1 || ms[0] < 86_400_000)
    throw new ConfigError(`ACCESS_LOG_RETENTION must be one duration of at least 1d, got "${env.ACCESS_LOG_RETENTION}"`);
  return ms[0];
}

function publicUrl(raw: string | undefined): string | null {
  if (!raw) return null;
  if (!/^https?:\/\/[^/\s]+$/.test(raw.replace(/\/$/, '')))
    throw new ConfigError(`PUBLIC_URL must be an origin such as https://gateway.example, got "${raw}"`);
  return raw.replace(/\/$/, '');
}

function smtpUrl(raw: string | undefined): string | null {
  const value = raw?.trim();
  if (!value) return null;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // Only the scheme is named: the rest of a URL may hold a password.
  if (!url || !['smtp:', 'smtps:'].includes(url.protocol) || !url.hostname)
    throw new ConfigError(
      `SMTP_URL must be smtp://host:port or smtps://host:port, got a "${/^[a-z]+:/i.exec(value)?.[0] ?? 'malformed'}" value`,
    );
  return value;
}

function mailConfig(env: Env): MailConfig {
  const from = env.MAIL_FROM?.trim() || 'Tender Exchange <no-reply@tender-exchange.invalid>';
  if (/[\r\n]/.test(from) || !/@/.test(from))
    throw new ConfigError(`MAIL_FROM must be an address such as "Gateway <no-reply@example.com>"`);
  const mail: MailConfig = {
    smtpUrl: smtpUrl(env.SMTP_URL),
    from,
    retrySchedule: durations(env, 'MAIL_RETRY_SCHEDULE', '30s,2m,10m,30m,1h,2h,4h,8h,12h,24h'),
    pollIntervalMs: integer(env, 'MAIL_POLL_INTERVAL_MS', 1000, 10, 3_600_000),
    leaseMs: integer(env, 'MAIL_LEASE_MS', 120_000, 100, 86_400_000),
    timeoutMs: integer(env, 'MAIL_TIMEOUT_MS', 30_000, 50, 600_000),
    publicUrl: publicUrl(env.PUBLIC_URL),
    retentionMs: durations(env, 'MAIL_RETENTION', '30d')[0],
    digestHour: integer(env, 'MAIL_DIGEST_HOUR', 7, 0, 23),
  };
  // A lease shorter than a send would let a second worker send the same mail while the first is still at it.
  if (mail.leaseMs <= mail.timeoutMs * 3) throw new ConfigError('MAIL_LEASE_MS must exceed three times MAIL_TIMEOUT_MS');
  return mail;
}

/** What one GraphQL operation may cost, and how many expensive ones run at once (DESIGN 6, fairness). */
export interface OperationLimitsConfig {
  /** Rows one operation may read: refused beforehand by estimate, stopped while running by count. */
  maxRows: number;
  /** From this estimate on, an operation is expensive and needs one of the slots below. */
  expensiveRows: number;
  /** Expensive operations running at once in one process. */
  expensiveConcurrency: number;
  /** How long an expensive operation waits (for its client's turn, then for a slot) before it is refused with 503, ms. */
  queueTimeoutMs: number;
  /** A client's expensive operations waiting for its turn behind the one it runs; one more is refused at once. */
  queuePerClient: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** HOST: an IP address or a host name to listen on; unset or empty, every interface. */
function listenHost(env: Env): string | undefined {
  const raw = env.HOST?.trim();
  if (!raw) return undefined;
  if (isIP(raw) === 0 && !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(raw))
    throw new ConfigError(`HOST must be an IP address or a host name, got "${raw}"`);
  return raw;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A comma list of durations such as `5s,5m,30m,2h`, in ms. */
function durations(env: Env, name: string, fallback: string): number[] {
  const raw = env[name] || fallback;
  const list = raw.split(',').map((entry) => entry.trim());
  const parsed = list.map((entry) => /^(\d{1,9})(ms|s|m|h|d)$/.exec(entry));
  if (list.length === 0 || list.length > 50 || parsed.some((match) => !match)) {
    throw new ConfigError(`${name} must be a comma list of 1 to 50 durations such as 5s,5m,2h (units ms, s, m, h, d), got "${raw}"`);
  }
  return parsed.map((match) => Number(match![1]) * UNITS[match![2]]);
}

/**
 * A calendar period such as `10y`, `18mo` or `90d` (years, months, days: what retention rules are written in);
 * empty or unset: none. Strict: one whole number, one unit, nothing else.
 */
function period(env: Env, name: string): Period | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  const match = /^(\d{1,4})(y|mo|d)$/.exec(raw);
  if (!match || Number(match[1]) === 0) {
    throw new ConfigError(`${name} must be a period such as 10y, 18mo or 90d (a whole number above 0, then y, mo or d), got "${raw}"`);
  }
  return { amount: Number(match[1]), unit: match[2] as Period['unit'] };
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

function timeZone(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: raw });
  } catch {
    throw new ConfigError(`${name} must be an IANA time zone such as Europe/Berlin, got "${raw}"`);
  }
  return raw;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function jwtSecret(env: Env, nodeEnv: string): string | null {
  const given = env.JWT_SECRET;
  if (given) {
    if (given.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters long');
    return given;
  }
  if (nodeEnv === 'production') throw new ConfigError('JWT_SECRET is required when NODE_ENV=production');
  return null;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function trustProxy(raw: string | undefined): boolean | number | string[] {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const valid =
      PROXY_NAMES.includes(entry) || (isIP(address) !== 0 && extra === undefined && (bits === undefined || /^\d{1,3}$/.test(bits)));
    if (!valid)
      throw new ConfigError(
        `TRUST_PROXY must be false, true, a hop count, or a comma list of addresses, CIDR ranges and ${PROXY_NAMES.join('/')}, got "${entry}"`,
      );
  }
  return entries;
}

function origins(raw: string | undefined): string[] {
  const list = (raw ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of list) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      throw new ConfigError(`CORS_ORIGINS entries must be origins such as https://app.example, got "${origin}"`);
  }
  return list;
}

function urlAllowList(env: Env, name: string, refusePrivate: boolean, always: string[] = []): UrlAllowList {
  try {
    return UrlAllowList.parse(name, [env[name] ?? '', ...always].filter(Boolean).join(','), refusePrivate);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
}

/**
 * Tracing is on when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and
 * neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none says otherwise. The SDK reads the other OTEL_* settings.
 */
export function tracingEnabled(env: Env): boolean {
  const endpoint = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
  return endpoint && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' && env.OTEL_TRACES_EXPORTER?.trim() !== 'none';
}

/** DATABASE_LISTEN_URL: a PostgreSQL URL beside a PostgreSQL DATABASE_URL, which it defaults to; none on SQLite. */
function listenUrl(env: Env, databaseUrl: string): string | undefined {
  const postgres = /^postgres(ql)?:\/\//i;
  const url = env.DATABASE_LISTEN_URL?.trim();
  if (!postgres.test(databaseUrl)) {
    if (url) throw new ConfigError('DATABASE_LISTEN_URL is for a PostgreSQL DATABASE_URL; SQLite has no LISTEN (leave it unset)');
    return undefined;
  }
  if (!url) return databaseUrl;
  if (!postgres.test(url)) {
    // As with DATABASE_URL, only the scheme is named.
    const scheme = /^[a-z]+:/i.exec(url)?.[0];
    throw new ConfigError(`DATABASE_LISTEN_URL must be a postgres://... URL, got ${scheme ? `a "${scheme}" URL` : 'no URL'}`);
  }
  return url;
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = env.NODE_ENV ?? 'development';
  const dataDir = resolve(env.DATA_DIR ?? './data');
  const databaseUrl = env.DATABASE_URL || join(dataDir, 'tender-exchange.sqlite');
  if (/^[a-z]+:\/\//i.test(databaseUrl) && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    // Only the scheme is named: the rest of a URL may hold a password.
    const scheme = /^[a-z]+:/i.exec(databaseUrl)?.[0];
    throw new ConfigError(`DATABASE_URL must be a SQLite file path, ":memory:" or postgres://..., got a "${scheme}" URL`);
  }
  const databaseListenUrl = listenUrl(env, databaseUrl);
  const tokenDefaultTtl = integer(env, 'TOKEN_DEFAULT_TTL', 3600, 60, 31 * 24 * 3600);
  const tokenMaxTtl = integer(env, 'TOKEN_MAX_TTL', 24 * 3600, 60, 31 * 24 * 3600);
  if (tokenDefaultTtl > tokenMaxTtl) throw new ConfigError('TOKEN_DEFAULT_TTL must not exceed TOKEN_MAX_TTL');
  const quotes: QuoteDispatchConfig = {
    timeoutMs: integer(env, 'QUOTE_TIMEOUT_MS', 5000, 50, 300_000),
    maxAttempts: integer(env, 'QUOTE_MAX_ATTEMPTS', 6, 1, 100),
    backoffBaseMs: integer(env, 'QUOTE_BACKOFF_BASE_MS', 1000, 1, 3_600_000),
    backoffMaxMs: integer(env, 'QUOTE_BACKOFF_MAX_MS', 60_000, 1, 86_400_000),
    pollIntervalMs: integer(env, 'QUOTE_POLL_INTERVAL_MS', 1000, 10, 3_600_000),
    leaseMs: integer(env, 'QUOTE_LEASE_MS', 60_000, 100, 86_400_000),
    concurrency: integer(env, 'QUOTE_CONCURRENCY', 32, 1, 256),
    concurrencyPerInsurer: integer(env, 'QUOTE_CONCURRENCY_PER_INSURER', 3, 1, 256),
    urlAllowList: urlAllowList(env, 'INSURER_URL_ALLOW', nodeEnv === 'production'),
    validityZone: timeZone(env, 'QUOTE_VALIDITY_ZONE', 'Europe/Berlin'),
    expiryWarningMs: durations(env, 'QUOTE_EXPIRY_WARNING', '3d')[0],
    expiryIntervalMs: integer(env, 'QUOTE_EXPIRY_INTERVAL_MS', 60_000, 10, 3_600_000),
    subjectivitySweepMs: integer(env, 'SUBJECTIVITY_SWEEP_MS', 60_000, 10, 3_600_000),
    coverOrderReminderDays: integer(env, 'COVER_ORDER_REMINDER', 2, 1, 60),
    renewalSweepMs: integer(env, 'RENEWAL_SWEEP_MS', 86_400_000, 10, 7 * 86_400_000),
    renewalLeadDays: integer(env, 'RENEWAL_LEAD_DAYS', 60, 15, 365),
  };
  // A lease shorter than one call would let a second dispatcher take over work that is still in flight.
  if (quotes.leaseMs <= quotes.timeoutMs) throw new ConfigError('QUOTE_LEASE_MS must exceed QUOTE_TIMEOUT_MS');
  const demo = boolean(env, 'DEMO', nodeEnv !== 'production');
  const webhooks: WebhookDeliveryConfig = {
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 5000, 50, 60_000),
    // Standard Webhooks' schedule, extended to about three days in all.
    retrySchedule: durations(env, 'WEBHOOK_RETRY_SCHEDULE', '5s,5m,30m,2h,5h,10h,14h,20h,24h'),
    pollIntervalMs: integer(env, 'WEBHOOK_POLL_INTERVAL_MS', 1000, 10, 3_600_000),
    leaseMs: integer(env, 'WEBHOOK_LEASE_MS', 60_000, 100, 86_400_000),
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 16, 1, 256),
    concurrencyPerClient: integer(env, 'WEBHOOK_CONCURRENCY_PER_CLIENT', 4, 1, 256),
    concurrencyPerEndpoint: integer(env, 'WEBHOOK_CONCURRENCY_PER_ENDPOINT', 2, 1, 256),
    replayPerDay: integer(env, 'WEBHOOK_REPLAY_PER_DAY', 5000, 1, 1_000_000),
    retentionMs: durations(env, 'WEBHOOK_RETENTION', '30d')[0],
    secretGraceMs: durations(env, 'WEBHOOK_SECRET_GRACE', '24h')[0],
    urlAllowList: urlAllowList(env, 'WEBHOOK_URL_ALLOW', true, demo ? ['127.0.0.1'] : []),
    httpsOnly: nodeEnv === 'production',
  };
  if (webhooks.leaseMs <= webhooks.timeoutMs) throw new ConfigError('WEBHOOK_LEASE_MS must exceed WEBHOOK_TIMEOUT_MS');
  const mail = mailConfig(env);
  return {
    nodeEnv,
    port: integer(env, 'PORT', 4000, 0, 65535),
    host: listenHost(env),
    databaseUrl,
    databaseListenUrl,
    dataDir,
    jwtSecret: jwtSecret(env, nodeEnv),
    jwtIssuer: env.JWT_ISSUER || 'tender-exchange',
    jwtAudience: env.JWT_AUDIENCE || 'tender-exchange-api',
    tokenDefaultTtl,
    tokenMaxTtl,
    tokenStandingReconcileMs: integer(env, 'TOKEN_STANDING_RECONCILE_MS', 1000, 50, 60_000),
    authRateLimit: integer(env, 'AUTH_RATE_LIMIT', 20, 1, 1_000_000),
    authRateWindow: integer(env, 'AUTH_RATE_WINDOW', 900, 1, 24 * 3600),
    demo,
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    corsOrigins: origins(env.CORS_ORIGINS),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    staticRateLimitPerMinute: integer(env, 'STATIC_RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    pageRateLimitPerMinute: integer(env, 'PAGE_RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    pageLinkRateLimitPerMinute: integer(env, 'PAGE_LINK_RATE_LIMIT_PER_MINUTE', 30, 1, 1_000_000),
    rateLimitStore: oneOf(env, 'RATE_LIMIT_STORE', ['database', 'memory'] as const, 'database'),
    rateLimitSyncMs: integer(env, 'RATE_LIMIT_SYNC_MS', 50, 0, 1000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 20_000, 0, 600_000),
    quotes,
    webhooks,
    mail,
    graphql: {
      maxRows: integer(env, 'GRAPHQL_MAX_ROWS', 10_000, 100, 1_000_000),
      expensiveRows: integer(env, 'GRAPHQL_EXPENSIVE_ROWS', 1000, 1, 1_000_000),
      expensiveConcurrency: integer(env, 'GRAPHQL_EXPENSIVE_CONCURRENCY', 2, 1, 64),
      queueTimeoutMs: integer(env, 'GRAPHQL_QUEUE_TIMEOUT_MS', 2000, 0, 60_000),
      queuePerClient: integer(env, 'GRAPHQL_QUEUE_PER_CLIENT', 4, 0, 64),
    },
    keptResponsesBytes: integer(env, 'KEPT_RESPONSES_BYTES', 8 * 1024 * 1024, 0, 1024 * 1024 * 1024),
    tracing: tracingEnabled(env),
    documents: {
      store: documentStore(env, dataDir),
      filesystemDir: join(dataDir, 'documents'),
      s3: s3Settings(env),
      maxBytes: integer(env, 'DOCUMENT_MAX_BYTES', 20 * 1024 * 1024, 1, 1024 * 1024 * 1024),
      linkTtlMs: linkTtl(env),
      publicUrl: publicUrl(env.PUBLIC_URL),
      uploads: uploadLimits(env),
    },
    accessLog: {
      enabled: oneOf(env, 'ACCESS_LOG', ['on', 'off'] as const, 'on') === 'on',
      retentionMs: accessLogRetention(env),
      flushMs: integer(env, 'ACCESS_LOG_FLUSH_MS', 1000, 10, 60_000),
    },
    privacy: {
      retention: period(env, 'RETENTION_PERSONAL_DATA'),
      sweepIntervalMs: integer(env, 'RETENTION_SWEEP_INTERVAL_MS', 3_600_000, 10, 86_400_000),
    },
    simPort: integer(env, 'SIM_PORT', 4100, 0, 65535),
  };
}
