import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withJwtSecret } from '../src/auth';
import { ConfigError, loadConfig, tracingEnabled } from '../src/platform/config';

const emptyFolder = () => mkdtempSync(join(tmpdir(), 'tender-exchange-config-'));

describe('the configuration', () => {
  it('.env.example names every setting the gateway reads, with a value', () => {
    const read = new Set<string>();
    const given: Record<string, string | undefined> = { DATA_DIR: emptyFolder() };
    const recording = new Proxy(given, {
      get: (target, name) => {
        if (typeof name !== 'string') return undefined;
        read.add(name);
        return target[name];
      },
    });
    loadConfig(recording);
    tracingEnabled(recording);
    const listed = new Set([...readFileSync('.env.example', 'utf8').matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]));
    expect(read.size).toBeGreaterThan(30);
    expect([...read].filter((name) => !listed.has(name))).toEqual([]);
  });

  it('is read without writing anything: no JWT_SECRET outside production leaves the secret to the start', () => {
    const dataDir = emptyFolder();
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config.jwtSecret).toBeNull();
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('gets a development secret at start, generated once, kept private in the data folder and reused', () => {
    const dataDir = join(emptyFolder(), 'data');
    const first = withJwtSecret(loadConfig({ DATA_DIR: dataDir }));
    const again = withJwtSecret(loadConfig({ DATA_DIR: dataDir }));
    expect(first.jwtSecret).toMatch(/^[\w-]{64}$/);
    expect(again.jwtSecret).toBe(first.jwtSecret);
    expect(statSync(join(dataDir, 'jwt-secret')).mode & 0o777).toBe(0o600);
  });

  it('keeps a given JWT_SECRET and writes no file', () => {
    const dataDir = emptyFolder();
    const secret = 'a-secret-that-is-long-enough-for-hs256-0123';
    expect(withJwtSecret(loadConfig({ DATA_DIR: dataDir, JWT_SECRET: secret })).jwtSecret).toBe(secret);
    expect(existsSync(join(dataDir, 'jwt-secret'))).toBe(false);
  });

  it('refuses to start production without JWT_SECRET, naming the variable', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: emptyFolder() })).toThrow(
      new ConfigError('JWT_SECRET is required when NODE_ENV=production'),
    );
  });

  it("takes LOG_LEVEL from pino's levels and names the variable when it is not one", () => {
    expect(loadConfig({ DATA_DIR: emptyFolder(), LOG_LEVEL: 'warn' }).logLevel).toBe('warn');
    expect(() => loadConfig({ DATA_DIR: emptyFolder(), LOG_LEVEL: 'loud' })).toThrow(
      /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"$/,
    );
  });

  it("takes the LISTEN connection's URL from DATABASE_LISTEN_URL, else DATABASE_URL on PostgreSQL, and has none on SQLite", () => {
    const [pooled, direct] = ['postgres://app@pgbouncer:6432/tenders', 'postgres://app@primary:5432/tenders'];
    expect(loadConfig({ DATA_DIR: emptyFolder(), DATABASE_URL: pooled, DATABASE_LISTEN_URL: direct }).databaseListenUrl).toBe(direct);
    expect(loadConfig({ DATA_DIR: emptyFolder(), DATABASE_URL: pooled, DATABASE_LISTEN_URL: '' }).databaseListenUrl).toBe(pooled);
    expect(loadConfig({ DATA_DIR: emptyFolder() }).databaseListenUrl).toBeUndefined();
  });

  it('refuses a DATABASE_LISTEN_URL beside SQLite, or one that is not PostgreSQL, never echoing the URL', () => {
    expect(() => loadConfig({ DATA_DIR: emptyFolder(), DATABASE_LISTEN_URL: 'postgres://app@primary:5432/tenders' })).toThrow(
      'DATABASE_LISTEN_URL is for a PostgreSQL DATABASE_URL; SQLite has no LISTEN (leave it unset)',
    );
    const refuse = () =>
      loadConfig({
        DATA_DIR: emptyFolder(),
        DATABASE_URL: 'postgres://app@pgbouncer:6432/tenders',
        DATABASE_LISTEN_URL: 'mysql://app:s3cret-pw@db.internal:3306/tenders',
      });
    expect(refuse).toThrow('DATABASE_LISTEN_URL must be a postgres://... URL, got a "mysql:" URL');
    expect(refuse).toThrow(ConfigError);
    expect(refuse).not.toThrow(/s3cret/);
  });

  it('refuses a DATABASE_URL of another database by its scheme, never echoing the URL and its password', () => {
    const refuse = () => loadConfig({ DATA_DIR: emptyFolder(), DATABASE_URL: 'mysql://app:s3cret-pw@db.internal:3306/tenders' });
    expect(refuse).toThrow('DATABASE_URL must be a SQLite file path, ":memory:" or postgres://..., got a "mysql:" URL');
    expect(refuse).not.toThrow(/s3cret-pw|db\.internal/);
  });

  it('turns tracing on only with an OTLP endpoint, and off again with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_SERVICE_NAME: 'gateway' })).toBe(false);
    expect(tracingEnabled(endpoint)).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingEnabled({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingEnabled({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('takes HOST as an address or a host name (unset: every interface) and names the variable when it is neither', () => {
    expect(loadConfig({ DATA_DIR: emptyFolder() }).host).toBeUndefined();
    expect(loadConfig({ DATA_DIR: emptyFolder(), HOST: '127.0.0.1' }).host).toBe('127.0.0.1');
    expect(loadConfig({ DATA_DIR: emptyFolder(), HOST: '::1' }).host).toBe('::1');
    expect(loadConfig({ DATA_DIR: emptyFolder(), HOST: 'gateway.internal' }).host).toBe('gateway.internal');
    expect(() => loadConfig({ DATA_DIR: emptyFolder(), HOST: 'http://0.0.0.0' })).toThrow(
      /^HOST must be an IP address or a host name, got/,
    );
  });

  it('takes the upload bounds with their defaults, and names the variable of a value out of range', () => {
    expect(loadConfig({ DATA_DIR: emptyFolder() }).documents.uploads).toEqual({
      concurrency: 64,
      concurrencyPerClient: 8,
      minBytesPerSecond: 16384,
      rateWindowMs: 10_000,
    });
    expect(() => loadConfig({ DATA_DIR: emptyFolder(), DOCUMENT_UPLOAD_CONCURRENCY: '0' })).toThrow(/^DOCUMENT_UPLOAD_CONCURRENCY must be/);
    expect(() => loadConfig({ DATA_DIR: emptyFolder(), DOCUMENT_UPLOAD_RATE_WINDOW: '500ms' })).toThrow(
      /^DOCUMENT_UPLOAD_RATE_WINDOW must be between 1s and 10m/,
    );
    expect(() =>
      loadConfig({ DATA_DIR: emptyFolder(), DOCUMENT_UPLOAD_CONCURRENCY: '4', DOCUMENT_UPLOAD_CONCURRENCY_PER_CLIENT: '8' }),
    ).toThrow(ConfigError);
  });

  it('keeps 8 MiB of REST answers unless KEPT_RESPONSES_BYTES says otherwise, 0 none, and names the variable of a bad value', () => {
    expect(loadConfig({ DATA_DIR: emptyFolder() }).keptResponsesBytes).toBe(8 * 1024 * 1024);
    expect(loadConfig({ DATA_DIR: emptyFolder(), KEPT_RESPONSES_BYTES: '0' }).keptResponsesBytes).toBe(0);
    expect(() => loadConfig({ DATA_DIR: emptyFolder(), KEPT_RESPONSES_BYTES: '16MiB' })).toThrow(
      /^KEPT_RESPONSES_BYTES must be a whole number/,
    );
    expect(() => loadConfig({ DATA_DIR: emptyFolder(), KEPT_RESPONSES_BYTES: String(2 ** 31) })).toThrow(
      /^KEPT_RESPONSES_BYTES must be between/,
    );
  });

  it('leaves mail off without SMTP_URL, and refuses a mail setting it cannot use without showing a password', () => {
    const off = loadConfig({ DATA_DIR: emptyFolder() }).mail;
    expect(off).toMatchObject({ smtpUrl: null, from: 'Tender Exchange <no-reply@tender-exchange.invalid>', publicUrl: null });
    const on = loadConfig({
      DATA_DIR: emptyFolder(),
      SMTP_URL: 'smtps://mailer:s3cret@mail.example:465',
      PUBLIC_URL: 'https://gw.example/',
    });
    expect(on.mail).toMatchObject({ smtpUrl: 'smtps://mailer:s3cret@mail.example:465', publicUrl: 'https://gw.example' });
    let refusal = '';
    try {
      loadConfig({ DATA_DIR: emptyFolder(), SMTP_URL: 'https://mailer:s3cret@mail.example' });
    } catch (error) {
      refusal = (error as Error).message;
    }
    expect(refusal).toMatch(/^SMTP_URL must be smtp:\/\/host:port/);
    expect(refusal).not.toContain('s3cret');
    expect(() => loadConfig({ DATA_DIR: emptyFolder(), MAIL_FROM: 'no address' })).toThrow(/^MAIL_FROM must be an address/);
    expect(() => loadConfig({ DATA_DIR: emptyFolder(), MAIL_TIMEOUT_MS: '60000', MAIL_LEASE_MS: '60000' })).toThrow(
      /^MAIL_LEASE_MS must exceed three times MAIL_TIMEOUT_MS/,
    );
  });
});
