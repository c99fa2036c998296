import 'reflect-metadata';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ApiClientService } from '../src/auth/api-client.service';
import { Role } from '../src/auth/role';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/database';
import { SeedService } from '../src/seed/seed.service';
import { REST_TENDER_LIST } from '../src/rest/tender-operations.graphql';

/**
 * `npm run bench`: seeds BENCH_TENDERS tenders (default 100 000) into a fresh SQLite file, starts the gateway
 * and a minimal baseline handler in processes of their own, and loads both with autocannon over loopback.
 * Prints figures and ratios against the baseline measured in the same run; never fails on a number.
 */
const TENDERS = Number(process.env.BENCH_TENDERS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const GATEWAY_PORT = 4701;
const BASELINE_PORT = 4702;

interface Figure {
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForUrl(url: string, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await fetch(url).then((r) => r.ok, () => false)) return Date.now() - started;
    await sleep(25);
  }
  throw new Error(`${url} did not come up`);
}

function start(script: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Peak resident set size of a process, sampled while the load runs. */
function watchRss(pid: number): { stop(): number } {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)]).toString().trim()) * 1024);
    } catch {
      // the process is gone
    }
  }, 200);
  return { stop: () => (clearInterval(timer), peak) };
}

async function load(scenario: string, options: autocannon.Options): Promise<Figure> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const figure = {
    scenario,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
  };
  console.log(`${scenario.padEnd(44)} ${String(figure.requestsPerSecond).padStart(7)} req/s  p50 ${String(figure.p50Ms).padStart(4)} ms  p99 ${String(figure.p99Ms).padStart(4)} ms${figure.non2xx ? `  (${figure.non2xx} non-2xx)` : ''}`);
  return figure;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tender-exchange-bench-'));
  const databaseUrl = join(dir, 'bench.sqlite');
  const env = { DATABASE_URL: databaseUrl, DATA_DIR: dir, JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123' };
  const orm = await openDatabase(loadConfig(env));
  const seedStarted = Date.now();
  await new SeedService(orm.em.fork()).run({ tenders: TENDERS, seed: 1 });
  const { client, secret } = await new ApiClientService(orm.em.fork()).create({ role: Role.INTERNAL, description: 'bench' });
  await orm.close();
  console.log(`seeded ${TENDERS} tenders in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s; ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB`);

  const gateway = start('src/main.ts', { ...env, PORT: String(GATEWAY_PORT), DEMO: 'false', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '1000000', AUTH_RATE_LIMIT: '1000000' });
  const readyMs = await waitForUrl(`http://127.0.0.1:${GATEWAY_PORT}/readyz`);
  const baseline = start('bench/baseline-server.ts', { BENCH_SQLITE: databaseUrl, PORT: String(BASELINE_PORT) });
  await waitForUrl(`http://127.0.0.1:${BASELINE_PORT}/tenders?limit=1`);
  const rss = watchRss(gateway.pid!);

  try {
    const gw = `http://127.0.0.1:${GATEWAY_PORT}`;
    const token = ((await (await fetch(`${gw}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ app_id: client.appId, secret }) })).json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${token}` };
    const first = ((await (await fetch(`${gw}/api/v1/tenders?limit=1`, { headers: auth })).json()) as { payload: { _id: string }[] }).payload[0]._id;
    const deepSkip = TENDERS - 50;

    const figures: Figure[] = [];
    figures.push(await load('baseline: first page (limit 50)', { url: `http://127.0.0.1:${BASELINE_PORT}/tenders?limit=50` }));
    figures.push(await load('REST /api/v1/tenders?limit=50', { url: `${gw}/api/v1/tenders?limit=50`, headers: auth }));
    figures.push(
      await load('GraphQL, the same page', {
        url: `${gw}/graphql`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: REST_TENDER_LIST, variables: { limit: 50 } }),
      }),
    );
    figures.push(await load('REST one tender', { url: `${gw}/api/v1/tenders/${first}`, headers: auth }));
    figures.push(await load(`baseline: deep page (skip ${deepSkip})`, { url: `http://127.0.0.1:${BASELINE_PORT}/tenders?limit=50&skip=${deepSkip}` }));
    figures.push(await load(`REST deep page (skip ${deepSkip})`, { url: `${gw}/api/v1/tenders?limit=50&skip=${deepSkip}`, headers: auth }));
    figures.push(
      await load('POST /auth/token', {
        url: `${gw}/auth/token`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ app_id: client.appId, secret }),
      }),
    );
    const peakRss = rss.stop();

    const by = (name: string) => figures.find((f) => f.scenario.startsWith(name))!;
    const ratios = {
      restVsBaseline: by('REST /api').requestsPerSecond / by('baseline: first').requestsPerSecond,
      graphqlVsBaseline: by('GraphQL').requestsPerSecond / by('baseline: first').requestsPerSecond,
      deepVsFirstP50: by('REST deep').p50Ms / Math.max(1, by('REST /api').p50Ms),
    };
    console.log(`
targets (printed, not asserted):
  REST page / baseline throughput      ${ratios.restVsBaseline.toFixed(2)}  (target ≥ 0.7)
  GraphQL page / baseline throughput   ${ratios.graphqlVsBaseline.toFixed(2)}  (target ≥ 0.5)
  deep page p50 / first page p50       ${ratios.deepVsFirstP50.toFixed(2)}  (target ≤ 2)
  gateway RSS at peak                  ${(peakRss / 2 ** 20).toFixed(0)} MB  (target < 300 MB)
  start to ready                       ${readyMs} ms  (target < 2000 ms)
  callback p99 at 200 req/s            not measured yet`);

    mkdirSync('bench/results', { recursive: true });
    const file = join('bench/results', `${new Date().toISOString().replace(/[:.]/g, '-')}-sqlite.json`);
    writeFileSync(
      file,
      `${JSON.stringify({ engine: 'sqlite', tenders: TENDERS, seconds: SECONDS, connections: CONNECTIONS, cores: cpus().length, figures, ratios, peakRssBytes: peakRss, readyMs }, null, 2)}\n`,
    );
    console.log(`\nwrote ${file}`);
  } finally {
    gateway.kill('SIGTERM');
    baseline.kill('SIGTERM');
    await sleep(500);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
