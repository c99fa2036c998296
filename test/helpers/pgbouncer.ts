import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './gateway-process';

/** Debian's package (`apt-get install pgbouncer`; `.ci/run` installs it when missing). */
const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** `serverUrl` with its host and port replaced by PgBouncer's: the same database and user, through the pooler. */
  pooled(serverUrl: string): string;
  /** How many client connections PgBouncer holds for `database` now (its admin console's SHOW CLIENTS). */
  clientsOf(database: string): Promise<number>;
  /** SIGTERM, and the temporary folder removed. */
  stop(): Promise<void>;
}

/**
 * A PgBouncer process of the test's own, in front of the PostgreSQL server of `serverUrl`, as deployments run it:
 * transaction pooling, so a server connection serves another client after each transaction, and few server
 * connections per database (`poolSize`), so the clients' transactions really do take turns on them. Trust auth, the
 * server's user listed in the auth file. On a free loopback port, its ini file in a temporary folder; never the
 * system service.
 */
export async function startPgBouncer(serverUrl: string, { poolSize = 3 }: { poolSize?: number } = {}): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username) || 'postgres';
  const dir = mkdtempSync(join(tmpdir(), 'tender-exchange-pgbouncer-'));
  // PgBouncer refuses to run as root; as root (CI's machine) it is told to become nobody, who must read these files.
  chmodSync(dir, 0o755);
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error) => (output += `${error.message}\n`));

  const pooled = (url: string) => {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String(port);
    return through.toString();
  };
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const url = new URL(pooled(serverUrl));
    url.pathname = '/pgbouncer';
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  for (const deadline = Date.now() + 10_000; ;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`pgbouncer exited: ${output}`);
    if (
      await admin((client) => client.query('SHOW VERSION')).then(
        () => true,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`pgbouncer did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    pooled,
    clientsOf: (database) =>
      admin(
        async (client) => (await client.query<{ database: string }>('SHOW CLIENTS')).rows.filter((row) => row.database === database).length,
      ),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
