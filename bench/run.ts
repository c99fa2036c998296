import 'reflect-metadata';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import autocannon from 'autocannon';
import pg from 'pg';
import { ApiClientService } from '../src/auth';
import { Role } from '../src/access';
import { loadConfig } from '../src/platform/config';
import { openDatabase } from '../src/database';
import { databaseEngine, type DatabaseEngine } from '../src/platform/db/orm-options';
import { Insurer } from '../src/insurers';
import { InsurerSimulator } from '../src/insurer-sim/insurer-sim';
import { QuoteRequestStatus, QuoteRequest } from '../src/quotes';
import { CALLBACK_PATH } from '../src/api/rest/quote-callback.routes';
import { REST_TENDER_LIST } from '../src/api/rest/tenders/tender-operations.graphql';
import { SeedService } from '../src/seed/seed.service';
import { Tender, TenderStatus } from '../src/tenders';
import { pacedPosts } from './paced-posts';
import { documentsScenario, type DocumentsResult } from './documents';
import { BENCH_DOCUMENT_STORE, benchDocumentStore } from './document-store';
import { productionStart } from './production-start';
import {
  DAY_QUOTE_RATE,
  DAY_SECONDS,
  dayInTheMarket,
  dayRateLimit,
  pagesOf,
  printDay,
  referenceDay,
  tendersOfClients,
  type DayResult,
  type MarketClient,
} from './day-in-the-market';
import { loopbackCertificate } from './hostile-attacks';
import {
  HEAVY_CONNECTIONS,
  HOSTILE_SECONDS,
  SLOW_INSURERS,
  hostileScenario,
  percentile,
  startTricklingInsurer,
  type HostileResult,
} from './hostile';

/**
 * `npm run bench`: for each engine (BENCH_ENGINES, default "sqlite,postgresql"), seeds BENCH_TENDERS tenders
 * (default 100 000) into a fresh database, starts the compiled gateway (`node dist/main.js`, production mode) and
 * the minimal baseline handler in processes of their own, and loads them with autocannon over loopback.
 * The baseline and the gateway take turns, BENCH_ROUNDS rounds of BENCH_SECONDS each, and each figure is the
 * median of its rounds: on a shared machine, speed drifts over a minute, and turns keep the ratios fair.
 * Prints figures and the targets of issue 6 beside them, writes `bench/results/<time>-<engine>.json`, and
 * never fails on a number. BENCH_SCENARIOS (default "reads,strict,kept,access-log,callback,hostile,documents,day") picks the read
 * scenarios, the strict reference's (`strictScenarios`: a broker's and an insurer's reads against ../shared/perf's reference), the kept
 * answers' hits and misses (`keptScenarios`: a page and a tender read again, against the same read at another `skip`
 * or of another tender each request), the access log's cost (a broker's page with ACCESS_LOG on and off), the callback, the
 * hostile load (bench/hostile.ts) and ten concurrent 20 MiB document uploads and downloads (bench/documents.ts).
 * "day" (bench/day-in-the-market.ts) runs last: many partners at once, on a gateway restarted with a real rate limit.
 * BENCH_DOCUMENT_STORE (default "filesystem"; "s3": an s3rver on loopback, bench/document-store.ts) picks the gateway's
 * document store.
 */
const TENDERS = Number(process.env.BENCH_TENDERS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const CALLBACK_RATE = Number(process.env.BENCH_CALLBACK_RATE ?? 200);
const CALLBACKS = Number(process.env.BENCH_CALLBACKS ?? CALLBACK_RATE * 10);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgresql').split(',') as DatabaseEngine[];
const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? 'reads,strict,kept,access-log,callback,hostile,documents,day').split(','));
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** As `npm run start:prod` runs the gateway: its environment settings and node options, read from package.json. */
const PRODUCTION = productionStart();
/** BENCH_PORT: the gateway's port, the baseline and the references on the next three (another bench may hold 4701). */
const GATEWAY_PORT = Number(process.env.BENCH_PORT ?? 4701);
const BASELINE_PORT = GATEWAY_PORT + 1;
const REFERENCE_PORT = GATEWAY_PORT + 2;
/** The second reference: the same server, the token's standing checked from memory. */
const MEMORY_REFERENCE_PORT = GATEWAY_PORT + 3;
/** The same gateway with ACCESS_LOG=off, for the access log's cost (BENCH_SCENARIOS "access-log"). */
const ACCESS_LOG_OFF_PORT = GATEWAY_PORT + 4;
/**
 * The strict reference (issue 43; ../shared/perf's two files in bench/strict/, with the insurer's case added): node:http
 * and better-sqlite3, the JWT verified with a key object made once, nothing kept per request; broker, insurer and
 * internal tokens.
 */
const STRICT_REFERENCE_PORT = GATEWAY_PORT + 5;
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123';
/** The day scenario's simulated insurers that quote. */
const MARKET_INSURERS = 3;

interface Figure {
  scenario: string;
  requestsPerSecond: number;
  /** CPU time (user + system) of the process under load per answered request: steadier than throughput on a shared machine. */
  cpuMsPerRequest?: number;
  /** The gateway's peak RSS while the scenario ran (its scenarios only). */
  peakRssBytes?: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function start(command: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, command, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

interface RssWatch {
  pid: number;
  /** The peak since the last call (or the start), and a new window from now. */
  window(): number;
  /** The peak of the whole run. */
  stop(): number;
}

/** Peak resident set size of a process, sampled every 100 ms. */
function watchRss(pid: number): RssWatch {
  let peak = 0;
  let windowPeak = 0;
  const timer = setInterval(() => {
    try {
      const rss =
        Number(
          execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
            .toString()
            .trim(),
        ) * 1024;
      peak = Math.max(peak, rss);
      windowPeak = Math.max(windowPeak, rss);
    } catch {
      // the process is gone
    }
  }, 100);
  return {
    pid,
    window: () => {
      const seen = windowPeak;
      windowPeak = 0;
      return seen;
    },
    stop: () => (clearInterval(timer), peak),
  };
}

/** The gateway's RSS, watched while it runs: each of its scenarios reports the peak it saw (where the memory goes). */
let gatewayRss: RssWatch | undefined;

async function once(options: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
}

function print(figure: Figure): Figure {
  // An unchanged poll is answered 304 by design; autocannon counts it as non-2xx.
  const expected304 = figure.scenario.includes('(304)');
  const flags = [
    figure.non2xx && !expected304 ? `${figure.non2xx} non-2xx` : '',
    expected304 && !figure.non2xx ? 'answered in full, not 304' : '',
    figure.errors ? `${figure.errors} errors` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const cpu = figure.cpuMsPerRequest === undefined ? '' : `  CPU ${figure.cpuMsPerRequest.toFixed(2).padStart(5)} ms/req`;
  const rss = figure.peakRssBytes === undefined ? '' : `  RSS ≤ ${(figure.peakRssBytes / 2 ** 20).toFixed(0)} MB`;
  console.log(
    `  ${figure.scenario.padEnd(44)} ${String(figure.requestsPerSecond).padStart(6)} req/s  p50 ${String(figure.p50Ms).padStart(4)} ms  p99 ${String(figure.p99Ms).padStart(4)} ms${cpu}${rss}${flags ? `  (${flags})` : ''}`,
  );
  return figure;
}

/** User + system CPU time of a process so far, ms (Linux /proc; fields 14 and 15 are in clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

interface Scenario {
  scenario: string;
  options: autocannon.Options;
  /** The process that answers, for its CPU per request. */
  pid?: number;
}

/** Runs the scenarios in turns, ROUNDS times, and reports each one's medians. */
async function inTurns(scenarios: Scenario[]): Promise<Figure[]> {
  const results = new Map<string, { result: autocannon.Result; cpuMsPerRequest?: number; peakRssBytes?: number }[]>(
    scenarios.map((s) => [s.scenario, []]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const { scenario, options, pid } of scenarios) {
      const watched = pid !== undefined && pid === gatewayRss?.pid ? gatewayRss : undefined;
      watched?.window();
      const before = cpuMs(pid);
      const result = await once(options);
      // autocannon stops sending, but what it sent is still in the server's queue: one more request, answered
      // behind them, says the backlog is gone, so it neither counts against the next scenario nor is missed here.
      const settled = await fetch(options.url, {
        method: options.method,
        headers: options.headers as Record<string, string>,
        body: options.body as string | undefined,
      })
        .then(async (response) => (await response.text(), 1))
        .catch(() => 0);
      const after = cpuMs(pid);
      const answered = result.requests.total + settled;
      results.get(scenario)!.push({
        result,
        cpuMsPerRequest: before !== undefined && after !== undefined && answered > 0 ? (after - before) / answered : undefined,
        peakRssBytes: watched?.window(),
      });
    }
  }
  return scenarios.map(({ scenario }) => {
    const measured = results.get(scenario)!;
    const runs = measured.map((m) => m.result);
    const cpu = measured.map((m) => m.cpuMsPerRequest).filter((value): value is number => value !== undefined);
    const rss = measured.map((m) => m.peakRssBytes).filter((value): value is number => value !== undefined);
    return print({
      scenario,
      cpuMsPerRequest: cpu.length > 0 ? median(cpu) : undefined,
      peakRssBytes: rss.length > 0 ? Math.max(...rss) : undefined,
      requestsPerSecond: Math.round(median(runs.map((r) => r.requests.average))),
      p50Ms: median(runs.map((r) => r.latency.p50)),
      p99Ms: median(runs.map((r) => r.latency.p99)),
      non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
      errors: runs.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    });
  });
}

async function token(base: string, credentials: { appId: string; secret: string }): Promise<string> {
  const response = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ app_id: credentials.appId, secret: credentials.secret }),
  });
  if (!response.ok) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Tenders a miss of one tender cycles through: more than the kept answers hold, so none is found kept again. */
const KEPT_MISS_TENDERS = 20_000;
/** The skips a missed page cycles through (each a page of 50): more pages than KEPT_RESPONSES_BYTES holds, none deep. */
const KEPT_MISS_SKIPS = 2_000;

interface KeptFigures {
  figures: Figure[];
  /** The gateway's `rest_kept_responses_total` over these scenarios. */
  lookups: { hit: number; miss: number };
  hitOverMiss(what: 'page' | 'tender'): number | undefined;
  /** Throughput of the gateway's hit or miss over the in-memory reference's same pattern. */
  versusReference(what: 'page' | 'tender', outcome: 'hit' | 'miss'): number;
}

/** The gateway's kept-answer lookups so far, from its metrics. */
async function keptLookups(gw: string): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${gw}/metrics`)).text();
  const of = (outcome: string) =>
    Number(new RegExp(`^rest_kept_responses_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { hit: of('hit'), miss: of('miss') };
}

/** Tenders a viewer sees at `gw` (`path`: its list), up to KEPT_MISS_TENDERS of them, and how many it sees in all. */
async function seenTenders(
  gw: string,
  headers: Record<string, string>,
  path = '/api/v1/tenders',
): Promise<{ ids: string[]; count: number }> {
  const ids: string[] = [];
  let count = 0;
  for (let skip = 0; ids.length < KEPT_MISS_TENDERS; skip += 200) {
    const page = (await (await fetch(`${gw}${path}?limit=200&skip=${skip}`, { headers })).json()) as {
      metadata: { count: string };
      payload: { _id: string }[];
    };
    count = Number(page.metadata.count);
    if (page.payload.length === 0) break;
    ids.push(...page.payload.map((tender) => tender._id));
  }
  return { ids, count };
}

/** A GET whose path is another each request: `pathOf(n)` for the n-th. */
function varying(origin: string, headers: Record<string, string>, pathOf: (n: number) => string): autocannon.Options {
  let n = 0;
  return { url: `${origin}${pathOf(0)}`, headers, requests: [{ setupRequest: (request) => ({ ...request, path: pathOf(n++) }) }] };
}

/**
 * Kept answers (issue 43): the same page of 50 and the same tender read again and again (hits: after the first, each
 * answered from its kept bytes), against reads that are never found kept (misses: a page at another `skip` each
 * request, another tender each request), for an internal user and a broker, and the references' same patterns.
 */
async function keptScenarios(
  gw: string,
  pid: number | undefined,
  tokens: { internal: Record<string, string>; broker: Record<string, string> },
  references: readonly { name: string; port: number; pid: number | undefined }[],
): Promise<KeptFigures> {
  const seen = (headers: Record<string, string>) => seenTenders(gw, headers);
  /** A full page at another skip each request (one of the first KEPT_MISS_SKIPS), and another tender each request. */
  const patterns = ({ ids, count }: { ids: string[]; count: number }) => ({
    pageAt: (n: number) => `/api/v1/tenders?limit=50&skip=${n % Math.max(1, Math.min(KEPT_MISS_SKIPS, count - 50))}`,
    tenderAt: (n: number) => `/api/v1/tenders/${ids[n % ids.length]}`,
  });
  const internal = patterns(await seen(tokens.internal));
  const scenarios: Scenario[] = [];
  for (const [who, headers] of Object.entries(tokens)) {
    const { pageAt, tenderAt } = who === 'internal' ? internal : patterns(await seen(headers));
    scenarios.push(
      { scenario: `kept (${who}): page of 50, hit`, options: { url: `${gw}/api/v1/tenders?limit=50`, headers }, pid },
      { scenario: `kept (${who}): page of 50, miss`, options: varying(gw, headers, pageAt), pid },
      { scenario: `kept (${who}): one tender, hit`, options: { url: `${gw}${tenderAt(0)}`, headers }, pid },
      { scenario: `kept (${who}): one tender, miss`, options: varying(gw, headers, tenderAt), pid },
    );
  }
  // The references keep nothing: a repeated read and a varying one cost them the same, both are shown.
  for (const { name, port, pid: referencePid } of references) {
    const origin = `http://127.0.0.1:${port}`;
    scenarios.push(
      {
        scenario: `${name}: kept page of 50, same`,
        options: { url: `${origin}/api/v1/tenders?limit=50`, headers: tokens.internal },
        pid: referencePid,
      },
      { scenario: `${name}: kept page of 50, varying`, options: varying(origin, tokens.internal, internal.pageAt), pid: referencePid },
      {
        scenario: `${name}: kept one tender, same`,
        options: { url: `${origin}${internal.tenderAt(0)}`, headers: tokens.internal },
        pid: referencePid,
      },
      { scenario: `${name}: kept one tender, varying`, options: varying(origin, tokens.internal, internal.tenderAt), pid: referencePid },
    );
  }
  const before = await keptLookups(gw);
  const figures = await inTurns(scenarios);
  const after = await keptLookups(gw);
  const rate = (name: string) => figures.find((figure) => figure.scenario === name)?.requestsPerSecond ?? NaN;
  const label = { page: 'page of 50', tender: 'one tender' } as const;
  return {
    figures,
    lookups: { hit: after.hit - before.hit, miss: after.miss - before.miss },
    hitOverMiss: (what) => rate(`kept (internal): ${label[what]}, hit`) / rate(`kept (internal): ${label[what]}, miss`),
    versusReference: (what, outcome) =>
      rate(`kept (internal): ${label[what]}, ${outcome}`) /
      rate(`memory reference: kept ${label[what]}, ${outcome === 'hit' ? 'same' : 'varying'}`),
  };
}
interface StrictFigures {
  figures: Figure[];
  /** The gateway's kept-answer lookups over the group: the misses must be misses. */
  lookups: { hit: number; miss: number };
  /** Throughput of a gateway scenario over the strict reference's same pattern (same role, same paths). */
  ratio(what: StrictRead, who?: StrictViewer): number;
  /** CPU per request of the gateway and of the strict reference in that pair. */
  cpu(what: StrictRead, who?: StrictViewer): { gateway: number; reference: number };
}

type StrictViewer = 'broker' | 'insurer' | 'internal';

/** The insurers whose answers the strict reference is checked on before it is timed. */
interface StrictInsurers {
  /** The seeded insurer with the most invitations: its reads are timed. */
  most: Record<string, string>;
  /** Another seeded insurer (the fewest invitations), for the check only. */
  other: Record<string, string>;
  /** An insurer invited to nothing: its empty list is read from its invitations (the gateway's form for few). */
  uninvited: Record<string, string>;
}

/** The body of `path` at the gateway and at the reference, with the same token; throws where they part. */
async function sameAnswer(
  gw: string,
  ref: string,
  path: string,
  headers: Record<string, string>,
  who: string,
  reference = 'strict reference',
): Promise<string> {
  const [ours, theirs] = await Promise.all(
    [gw, ref].map(async (host) => {
      const response = await fetch(`${host}${path}`, { headers });
      return { status: response.status, text: await response.text() };
    }),
  );
  // A 404's body is the gateway's problem document and the reference's short one: the status is what must agree.
  if (ours.status !== theirs.status || (ours.status !== 404 && ours.text !== theirs.text)) {
    let at = 0;
    while (ours.text[at] === theirs.text[at]) at++;
    throw new Error(
      `the ${reference} answers ${who}'s ${path} differently from the gateway (${ours.status} vs ${theirs.status}), at ${at}:\n` +
        `${ours.text.slice(Math.max(0, at - 200), at + 200)}\n${theirs.text.slice(Math.max(0, at - 200), at + 200)}`,
    );
  }
  return ours.text;
}

/**
 * An insurer's answers at the gateway and the strict reference, byte for byte: its pages of 10, 50 (at skip 50) and 200,
 * one of its tenders, from the page of 200 a tender another insurer won, a CLOSED one and one it won (each when it
 * sees one), and a tender it was not invited to (a 404 at both). Returns what the check covered.
 */
async function checkInsurer(
  gw: string,
  ref: string,
  headers: Record<string, string>,
  candidates: readonly string[],
): Promise<{ count: number; lost: number; closed: number; won: number; hidden: boolean }> {
  const base = '/public/v1/tenders';
  await sameAnswer(gw, ref, `${base}?limit=10`, headers, 'an insurer');
  await sameAnswer(gw, ref, `${base}?limit=50&skip=50`, headers, 'an insurer');
  const page = JSON.parse(await sameAnswer(gw, ref, `${base}?limit=200`, headers, 'an insurer')) as {
    metadata: { count: string };
    payload: { _id: string; status: string; customer: unknown }[];
  };
  const seen = new Set(page.payload.map((tender) => tender._id));
  const lost = page.payload.filter((tender) => tender.status === 'SUCCESSFUL' && tender.customer === null);
  const closed = page.payload.filter((tender) => tender.status === 'CLOSED');
  const won = page.payload.filter((tender) => tender.status === 'SUCCESSFUL' && tender.customer !== null);
  for (const tender of [page.payload[7], lost[0], closed[0], won[0]]) {
    if (tender) await sameAnswer(gw, ref, `${base}/${tender._id}`, headers, 'an insurer');
  }
  // A tender it may not see: among the others', the first the gateway answers 404 (its page of 200 may not hold all it sees).
  let hidden = false;
  for (const id of candidates.filter((id) => !seen.has(id)).slice(0, 50)) {
    if ((await fetch(`${gw}${base}/${id}`, { headers })).status !== 404) continue;
    await sameAnswer(gw, ref, `${base}/${id}`, headers, 'an insurer');
    hidden = true;
    break;
  }
  return { count: Number(page.metadata.count), lost: lost.length, closed: closed.length, won: won.length, hidden };
}

type StrictRead = 'one tender' | 'page of 10' | 'page of 50' | 'page of 200' | 'GraphQL page of 50' | 'page of 50, hit';

/**
 * Issue 43: the gateway against the strict reference with the partners' tokens. A broker's one tender, pages of 10,
 * 50 and 200 and the GraphQL page of 50, each a miss of the kept answers (another tender or `skip` each request), and
 * the repeated page of 50 (a hit); an insurer's one tender and page of 50 at /public/v1 and an internal user's page of
 * 50 (misses). The reference answers the same pattern with the same token, checked byte for byte first: a broker's
 * and insurers' pages and tenders, an insurer's redacted ones (a tender another insurer won, a CLOSED one) among them.
 */
async function strictScenarios(
  gw: string,
  pid: number | undefined,
  strict: { port: number; pid: number | undefined },
  tokens: { broker: Record<string, string>; internal: Record<string, string>; insurers: StrictInsurers },
): Promise<StrictFigures> {
  const ref = `http://127.0.0.1:${strict.port}`;
  const broker = await seenTenders(gw, tokens.broker);
  const internal = await seenTenders(gw, tokens.internal);
  const insurer = await seenTenders(gw, tokens.insurers.most, '/public/v1/tenders');
  const pageAt =
    (count: number, limit: number, base = '/api/v1/tenders') =>
    (n: number) =>
      `${base}?limit=${limit}&skip=${n % Math.max(1, Math.min(KEPT_MISS_SKIPS, count - limit))}`;
  const tenderAt =
    (ids: string[], base = '/api/v1/tenders') =>
    (n: number) =>
      `${base}/${ids[n % ids.length]}`;
  for (const path of ['/api/v1/tenders?limit=10', '/api/v1/tenders?limit=50&skip=50', '/api/v1/tenders?limit=200', tenderAt(broker.ids)(7)])
    await sameAnswer(gw, ref, path, tokens.broker, 'a broker');
  console.log("  the strict reference answers a broker's pages and tenders byte for byte as the gateway does");
  await sameAnswer(gw, ref, '/public/v1/tenders?limit=10', tokens.internal, 'an internal user');
  for (const who of ['most', 'other', 'uninvited'] as const) {
    const covered = await checkInsurer(gw, ref, tokens.insurers[who], internal.ids);
    const what =
      covered.count === 0
        ? 'its empty list'
        : `its pages and tenders: in its page of 200, ${covered.lost} another insurer won and ${covered.closed} CLOSED (redacted), ${covered.won} it won`;
    console.log(
      `  the strict reference answers insurer (${who}, ${covered.count} invitations) byte for byte as the gateway does, ${what}` +
        `${covered.hidden ? '; and 404 for a tender it was not invited to' : ''}`,
    );
    if (who !== 'uninvited' && covered.lost === 0) console.log(`  NOTE: insurer (${who}) sees no tender another insurer won`);
  }
  const graphql = (headers: Record<string, string>): autocannon.Options => ({
    url: `${gw}/graphql`,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query: REST_TENDER_LIST, variables: { limit: 50 } }),
  });
  const pairs: { what: StrictRead; who: StrictViewer; ours: autocannon.Options; theirs: autocannon.Options }[] = [
    {
      what: 'one tender',
      who: 'broker',
      ours: varying(gw, tokens.broker, tenderAt(broker.ids)),
      theirs: varying(ref, tokens.broker, tenderAt(broker.ids)),
    },
    ...([10, 50, 200] as const).map((limit) => ({
      what: `page of ${limit}` as StrictRead,
      who: 'broker' as const,
      ours: varying(gw, tokens.broker, pageAt(broker.count, limit)),
      theirs: varying(ref, tokens.broker, pageAt(broker.count, limit)),
    })),
    {
      what: 'GraphQL page of 50',
      who: 'broker',
      ours: graphql(tokens.broker),
      theirs: varying(ref, tokens.broker, pageAt(broker.count, 50)),
    },
    {
      what: 'page of 50, hit',
      who: 'broker',
      ours: { url: `${gw}/api/v1/tenders?limit=50`, headers: tokens.broker },
      theirs: { url: `${ref}/api/v1/tenders?limit=50`, headers: tokens.broker },
    },
    {
      what: 'one tender',
      who: 'insurer',
      ours: varying(gw, tokens.insurers.most, tenderAt(insurer.ids, '/public/v1/tenders')),
      theirs: varying(ref, tokens.insurers.most, tenderAt(insurer.ids, '/public/v1/tenders')),
    },
    {
      what: 'page of 50',
      who: 'insurer',
      ours: varying(gw, tokens.insurers.most, pageAt(insurer.count, 50, '/public/v1/tenders')),
      theirs: varying(ref, tokens.insurers.most, pageAt(insurer.count, 50, '/public/v1/tenders')),
    },
    {
      what: 'page of 50',
      who: 'internal',
      ours: varying(gw, tokens.internal, pageAt(internal.count, 50)),
      theirs: varying(ref, tokens.internal, pageAt(internal.count, 50)),
    },
  ];
  const name = (side: 'gateway' | 'strict reference', what: StrictRead, who: string) =>
    `${side === 'gateway' ? 'strict' : 'strict reference'} (${who}): ${what}`;
  const scenarios: Scenario[] = pairs.flatMap(({ what, who, ours, theirs }) => [
    { scenario: name('gateway', what, who), options: ours, pid },
    { scenario: name('strict reference', what, who), options: theirs, pid: strict.pid },
  ]);
  const before = await keptLookups(gw);
  const figures = await inTurns(scenarios);
  const after = await keptLookups(gw);
  const figure = (scenario: string) => figures.find((each) => each.scenario === scenario);
  return {
    figures,
    lookups: { hit: after.hit - before.hit, miss: after.miss - before.miss },
    ratio: (what, who = 'broker') =>
      (figure(name('gateway', what, who))?.requestsPerSecond ?? NaN) /
      (figure(name('strict reference', what, who))?.requestsPerSecond ?? NaN),
    cpu: (what, who = 'broker') => ({
      gateway: figure(name('gateway', what, who))?.cpuMsPerRequest ?? NaN,
      reference: figure(name('strict reference', what, who))?.cpuMsPerRequest ?? NaN,
    }),
  };
}

/** The Authorization header of a new API client's token. */
async function tokenHeaders(
  base: string,
  orm: MikroORM,
  binding: { role: Role; insurerId?: string; brokerCompanyId?: string },
): Promise<Record<string, string>> {
  const created = await new ApiClientService(orm.em.fork()).create({ ...binding, description: `bench ${binding.role}` });
  return { authorization: `Bearer ${await token(base, { appId: created.client.appId, secret: created.secret })}` };
}

interface Database {
  url: string;
  drop(): Promise<void>;
}

async function freshDatabase(engine: DatabaseEngine): Promise<Database> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'tender-exchange-bench-'));
    return { url: join(dir, 'bench.sqlite'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `tx_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

interface Traffic {
  calls: number;
  connections: number;
}

/** The insurer system for the callback scenario: a simulator on loopback whose quotes wait for our callbacks. */
async function startSilentInsurer(): Promise<{ server: Server; url: string; simulator?: InsurerSimulator; traffic: Traffic }> {
  const holder: { simulator?: InsurerSimulator } = {};
  // The gateway's calls to it and the TCP connections they came over: what keeping connections alive saves.
  const traffic: Traffic = { calls: 0, connections: 0 };
  const server = createServer((req, res) => {
    traffic.calls++;
    holder.simulator!.app(req, res);
  });
  server.on('connection', () => traffic.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(holder, { server, traffic, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/insurers/bench` });
}

async function benchEngine(engine: DatabaseEngine): Promise<void> {
  console.log(`\n## ${engine}`);
  const database = await freshDatabase(engine);
  const dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-bench-data-'));
  const env = { DATABASE_URL: database.url, DATA_DIR: dataDir, JWT_SECRET };
  const orm = await openDatabase(loadConfig(env));
  const insurerSystem = await startSilentInsurer();
  const trickling = await startTricklingInsurer();
  const documentStore = await benchDocumentStore();
  const processes: ChildProcess[] = [];
  try {
    const seedStarted = Date.now();
    const seeded = await new SeedService(orm.em.fork()).run({ tenders: TENDERS, seed: 1 });
    // What autovacuum does to a table in service: statistics for the planner and a visibility map for
    // index-only scans. Straight after a bulk load PostgreSQL has neither.
    if (engine === 'postgresql') await orm.em.getConnection().execute('vacuum analyze');
    const internal = await new ApiClientService(orm.em.fork()).create({ role: Role.INTERNAL, description: 'bench' });
    const em = orm.em.fork();
    const insurer = em.create(Insurer, { name: 'Bench Insurance', quoteApiUrl: insurerSystem.url, createdAt: new Date() });
    await em.flush();
    const insurerClient = await new ApiClientService(orm.em.fork()).create({
      role: Role.INSURER,
      insurerId: insurer.id,
      description: 'bench callbacks',
    });
    // The hostile scenario's insurers: one healthy simulated insurer, and systems that trickle their answers.
    const healthy = em.create(Insurer, {
      name: 'Healthy Insurance',
      quoteApiUrl: insurerSystem.url.replace(/bench$/, 'healthy'),
      createdAt: new Date(),
    });
    const slow = Array.from({ length: SLOW_INSURERS }, (_, i) =>
      em.create(Insurer, { name: `Trickling Insurance ${i}`, quoteApiUrl: trickling.url, createdAt: new Date() }),
    );
    // The day scenario's market: simulated insurers that quote, each with its client for the callbacks.
    const market = Array.from({ length: MARKET_INSURERS }, (_, i) =>
      em.create(Insurer, {
        name: `Market Insurance ${i}`,
        quoteApiUrl: insurerSystem.url.replace(/bench$/, `market-${i}`),
        createdAt: new Date(),
      }),
    );
    await em.flush();
    const healthyClient = await new ApiClientService(orm.em.fork()).create({
      role: Role.INSURER,
      insurerId: healthy.id,
      description: 'bench healthy insurer',
    });
    const marketClients = [];
    for (const insurer of market)
      marketClients.push(
        await new ApiClientService(orm.em.fork()).create({ role: Role.INSURER, insurerId: insurer.id, description: 'bench market' }),
      );
    console.log(`seeded ${TENDERS} tenders in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

    const gw = `http://127.0.0.1:${GATEWAY_PORT}`;
    const certificate = loopbackCertificate(dataDir);
    insurerSystem.simulator = new InsurerSimulator({
      gatewayUrl: gw,
      insurers: [
        { slug: 'bench', appId: insurerClient.client.appId, secret: insurerClient.secret, behaviour: 'silent' },
        { slug: 'healthy', appId: healthyClient.client.appId, secret: healthyClient.secret, behaviour: 'quote' },
        ...marketClients.map((created, i) => ({
          slug: `market-${i}`,
          appId: created.client.appId,
          secret: created.secret,
          behaviour: 'quote' as const,
        })),
      ],
    });

    const started = Date.now();
    // BENCH_GATEWAY_ARGS: extra node options for the gateway, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
    const gatewayArgs = [...PRODUCTION.nodeOptions, ...(process.env.BENCH_GATEWAY_ARGS ?? '').split(' ').filter(Boolean), PRODUCTION.entry];
    const gatewayEnv = (port: number, more: Record<string, string> = {}) => ({
      ...PRODUCTION.env,
      ...env,
      NODE_ENV: 'production',
      PORT: String(port),
      DEMO: 'false',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_RATE_LIMIT: '1000000',
      // The simulated insurers and the hostile scenario's webhook receivers live on loopback, which production refuses unless listed.
      INSURER_URL_ALLOW: '127.0.0.1',
      WEBHOOK_URL_ALLOW: '127.0.0.1',
      NODE_EXTRA_CA_CERTS: certificate.certFile,
      ...documentStore.env,
      ...more,
    });
    let gateway = start(gatewayArgs, gatewayEnv(GATEWAY_PORT));
    processes.push(gateway);
    const rss = watchRss(gateway.pid!);
    gatewayRss = rss;
    const exited = new Promise<never>((_, reject) => gateway.once('exit', (code) => reject(new Error(`the gateway exited (${code})`))));
    exited.catch(() => undefined);
    await Promise.race([waitFor('the gateway', async () => (await fetch(`${gw}/readyz`)).ok, 60_000), exited]);
    const readyMs = Date.now() - started;
    const baseline = start(['--import', 'tsx', 'bench/baseline-server.ts'], {
      BENCH_DATABASE_URL: database.url,
      PORT: String(BASELINE_PORT),
    });
    processes.push(baseline);
    const base = `http://127.0.0.1:${BASELINE_PORT}`;
    await waitFor('the baseline', async () => (await fetch(`${base}/tenders?limit=1`)).ok, 60_000);

    const auth = { authorization: `Bearer ${await token(gw, { appId: internal.client.appId, secret: internal.secret })}` };
    const first = ((await (await fetch(`${gw}/api/v1/tenders?limit=1`, { headers: auth })).json()) as { payload: { _id: string }[] })
      .payload[0]._id;
    // The raw references (SQLite only: better-sqlite3), each checked byte for byte against the gateway before it is
    // timed: one reads the token's standing per request (a statement, as the gateway did before 1.x), one from memory.
    const withReference = engine === 'sqlite';
    const referenceServer = (standing: string) => ({
      args: ['--import', 'tsx', 'bench/reference-server.ts'],
      env: { BENCH_DATABASE_URL: database.url, JWT_SECRET, REFERENCE_STANDING: standing },
    });
    const references = [
      { name: 'reference', port: REFERENCE_PORT, ...referenceServer('statement'), pid: undefined as number | undefined },
      { name: 'memory reference', port: MEMORY_REFERENCE_PORT, ...referenceServer('memory'), pid: undefined as number | undefined },
      {
        name: 'strict reference',
        port: STRICT_REFERENCE_PORT,
        args: ['bench/strict/reference-jwt.mjs'],
        env: { DB: database.url, JWT_SECRET },
        pid: undefined as number | undefined,
      },
    ];
    if (withReference) {
      for (const reference of references) {
        const referenceProcess = start(reference.args, { ...reference.env, PORT: String(reference.port) });
        processes.push(referenceProcess);
        reference.pid = referenceProcess.pid;
        const ref = `http://127.0.0.1:${reference.port}`;
        await waitFor(
          `the ${reference.name}`,
          async () => (await fetch(`${ref}/api/v1/tenders?limit=1`, { headers: auth }).catch(() => ({ ok: false }))).ok,
          60_000,
        );
        for (const path of [
          '/api/v1/tenders?limit=50',
          `/api/v1/tenders?limit=50&skip=${Math.max(0, TENDERS - 50)}`,
          `/api/v1/tenders/${first}`,
        ])
          await sameAnswer(gw, ref, path, auth, 'an internal user', reference.name);
        console.log(`  the ${reference.name} answers byte for byte as the gateway does`);
      }
    }
    const deepSkip = Math.max(0, TENDERS - 50);
    const graphqlPage = JSON.stringify({ query: REST_TENDER_LIST, variables: { limit: 50 } });

    // Warm-up: JIT compilation and caches, not measured.
    for (const url of [`${base}/tenders?limit=50`, `${gw}/api/v1/tenders?limit=50`])
      await autocannon({ url, headers: auth, connections: CONNECTIONS, amount: 300 });

    const figures: Figure[] = [];
    const reference = (scenario: string, path: string): Scenario[] =>
      withReference
        ? references.map(({ name, port, pid }) => ({
            scenario: `${name}: ${scenario}`,
            options: { url: `http://127.0.0.1:${port}${path}`, headers: auth },
            pid,
          }))
        : [];
    const rest = (scenario: string, path: string, headers: Record<string, string> = auth): Scenario => ({
      scenario,
      options: { url: `${gw}${path}`, headers },
      pid: gateway.pid,
    });
    /** The cursor that continues a list after its first `skip` tenders. */
    const cursorAt = async (path: string, skip: number, headers: Record<string, string>) =>
      ((await (await fetch(`${gw}${path}?limit=50&skip=${Math.max(0, skip - 50)}`, { headers })).json()) as { metadata: { next: string } })
        .metadata.next;
    /** An unchanged poll: the page's own ETag in If-None-Match. */
    const unchanged = async (path: string) => ({
      ...auth,
      'if-none-match': (await fetch(`${gw}${path}`, { headers: auth })).headers.get('etag')!,
    });
    if (SCENARIOS.has('reads')) {
      // Each role's first page and deepest page, by skip and by cursor: a broker with the most tenders, the insurer with the most invitations.
      const roles = await Promise.all(
        [
          { role: 'internal', path: '/api/v1/tenders', headers: auth },
          {
            role: 'broker',
            path: '/api/v1/tenders',
            headers: await tokenHeaders(gw, orm, { role: Role.BROKER, brokerCompanyId: seeded.brokerCompanies[0].id }),
          },
          {
            role: 'insurer',
            path: '/public/v1/tenders',
            headers: await tokenHeaders(gw, orm, { role: Role.INSURER, insurerId: seeded.insurers[0].id }),
          },
        ].map(async (viewer) => {
          const count = Number(
            ((await (await fetch(`${gw}${viewer.path}?limit=1`, { headers: viewer.headers })).json()) as { metadata: { count: string } })
              .metadata.count,
          );
          return {
            ...viewer,
            count,
            deep: Math.max(0, count - 50),
            after: await cursorAt(viewer.path, Math.max(0, count - 50), viewer.headers),
          };
        }),
      );
      figures.push(
        ...(await inTurns([
          ...reference('first page (limit 50)', '/api/v1/tenders?limit=50'),
          { scenario: 'baseline: first page (limit 50)', options: { url: `${base}/tenders?limit=50` }, pid: baseline.pid },
          rest('REST /api/v1/tenders?limit=50', '/api/v1/tenders?limit=50'),
          {
            scenario: 'GraphQL /graphql, the same page',
            options: { url: `${gw}/graphql`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: graphqlPage },
            pid: gateway.pid,
          },
          rest('REST the same page, unchanged (304)', '/api/v1/tenders?limit=50', await unchanged('/api/v1/tenders?limit=50')),
        ])),
        ...(await inTurns([
          ...reference('limit 10', '/api/v1/tenders?limit=10'),
          rest('REST limit 10', '/api/v1/tenders?limit=10'),
          ...reference('limit 200', '/api/v1/tenders?limit=200'),
          rest('REST limit 200', '/api/v1/tenders?limit=200'),
          ...reference('limit 1 (the count)', '/api/v1/tenders?limit=1'),
          rest('REST limit 1 (the count)', '/api/v1/tenders?limit=1'),
        ])),
        ...(await inTurns([
          ...reference(`deep page (skip ${deepSkip})`, `/api/v1/tenders?limit=50&skip=${deepSkip}`),
          {
            scenario: `baseline: deep page (skip ${deepSkip})`,
            options: { url: `${base}/tenders?limit=50&skip=${deepSkip}` },
            pid: baseline.pid,
          },
          rest(`REST deep page (skip ${deepSkip})`, `/api/v1/tenders?limit=50&skip=${deepSkip}`),
        ])),
        ...(await inTurns(
          roles.flatMap(({ role, path, headers, deep, after }) => [
            rest(`${role}: first page`, `${path}?limit=50`, headers),
            rest(`${role}: deep page (skip ${deep})`, `${path}?limit=50&skip=${deep}`, headers),
            rest(`${role}: deep page (after a cursor)`, `${path}?limit=50&after=${after}`, headers),
          ]),
        )),
        ...(await inTurns([
          ...reference('one tender', `/api/v1/tenders/${first}`),
          rest('REST one tender', `/api/v1/tenders/${first}`),
          rest('REST one tender, unchanged (304)', `/api/v1/tenders/${first}`, await unchanged(`/api/v1/tenders/${first}`)),
          {
            scenario: 'POST /auth/token',
            options: {
              url: `${gw}/auth/token`,
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ app_id: internal.client.appId, secret: internal.secret }),
            },
            pid: gateway.pid,
          },
        ])),
      );
    }
    let strict: StrictFigures | undefined;
    if (SCENARIOS.has('strict') && withReference) {
      const strictReference = references.find((each) => each.name === 'strict reference')!;
      // The seeded insurers by their invitations, most first: the first is timed, the last checked too.
      const invited = (await orm.em
        .getConnection()
        .execute('select insurer_id, count(*) as n from tender_invitation group by insurer_id order by n desc, insurer_id')) as {
        insurer_id: string;
      }[];
      const seededIds = new Set(seeded.insurers.map((each) => each.id));
      const [most, other] = [invited[0], invited[invited.length - 1]].map((row) => row.insurer_id);
      if (!seededIds.has(most) || !seededIds.has(other) || most === other)
        throw new Error('expected the seeded insurers to hold the invitations');
      strict = await strictScenarios(gw, gateway.pid, strictReference, {
        broker: await tokenHeaders(gw, orm, { role: Role.BROKER, brokerCompanyId: seeded.brokerCompanies[0].id }),
        internal: auth,
        insurers: {
          most: await tokenHeaders(gw, orm, { role: Role.INSURER, insurerId: most }),
          other: await tokenHeaders(gw, orm, { role: Role.INSURER, insurerId: other }),
          uninvited: await tokenHeaders(gw, orm, { role: Role.INSURER, insurerId: insurer.id }),
        },
      });
      figures.push(...strict.figures);
    }
    let kept: KeptFigures | undefined;
    if (SCENARIOS.has('kept')) {
      const broker = await tokenHeaders(gw, orm, { role: Role.BROKER, brokerCompanyId: seeded.brokerCompanies[0].id });
      kept = await keptScenarios(gw, gateway.pid, { internal: auth, broker }, withReference ? references : []);
      figures.push(...kept.figures);
    }
    rss.window();
    const callback = SCENARIOS.has('callback')
      ? await callbackScenario(orm.em.fork(), gw, auth, insurer, { appId: insurerClient.client.appId, secret: insurerClient.secret })
      : {
          figure: { scenario: 'callback', requestsPerSecond: 0, p50Ms: NaN, p99Ms: NaN, non2xx: 0, errors: 0 },
          sent: 0,
          honoured: 0,
          drainMs: 0,
          within20Ms: NaN,
        };
    if (SCENARIOS.has('callback')) {
      figures.push(print({ ...callback.figure, peakRssBytes: rss.window() }));
      const { calls, connections } = insurerSystem.traffic;
      console.log(`  the insurer system received ${calls} calls (requests and fetches) over ${connections} TCP connections`);
    }
    const peakRss = rss.stop();
    let hostile: HostileResult | undefined;
    if (SCENARIOS.has('hostile')) {
      console.log(
        `  hostile: ${HOSTILE_SECONDS} s of the heaviest allowed GraphQL operations, distinct documents and trickling insurers...`,
      );
      const heavyTokens: string[] = [];
      for (let i = 0; i < HEAVY_CONNECTIONS; i++) {
        const heavyClient = await new ApiClientService(orm.em.fork()).create({ role: Role.INTERNAL, description: `bench heavy ${i}` });
        heavyTokens.push(await token(gw, { appId: heavyClient.client.appId, secret: heavyClient.secret }));
      }
      const openTenders = async (brokerCompanyId: string, limit: number) =>
        (
          await orm.em.fork().find(
            Tender,
            {
              brokerCompany: brokerCompanyId,
              status: { $in: [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.REOPENED] },
            },
            { fields: ['id'], limit },
          )
        ).map((tender) => tender.id);
      const [attackerCompany, victimCompany] = seeded.brokerCompanies.slice(1, 3);
      const attackSetup = {
        attacker: await tokenHeaders(gw, orm, { role: Role.BROKER, brokerCompanyId: attackerCompany.id }),
        victim: await tokenHeaders(gw, orm, { role: Role.BROKER, brokerCompanyId: victimCompany.id }),
        analyst: await tokenHeaders(gw, orm, { role: Role.ANALYST }),
        attackerTenders: await openTenders(attackerCompany.id, 11),
        victimTender: (await openTenders(victimCompany.id, 1))[0],
        insurerIds: [healthy, ...slow, ...seeded.insurers].slice(0, 10).map((insurer) => insurer.id),
        certificate,
      };
      hostile = await hostileScenario(orm.em.fork(), gw, gateway.pid!, auth, heavyTokens, { healthy, slow }, attackSetup);
      const { attacks } = hostile;
      const ms = (values: number[]) => `p50 ${percentile(values, 0.5)} ms, p99 ${percentile(values, 0.99)} ms (${values.length})`;
      console.log(`  hostile: gateway ${hostile.survived ? 'survived' : 'DID NOT SURVIVE'}, peak RSS ${hostile.peakRssMiB} MiB
    heavy operations by status ${JSON.stringify(hostile.heavy)}, distinct documents (each twice) ${hostile.distinctDocuments}
    healthy insurer: ${hostile.healthyQuotes} quotes, latency p50 ${hostile.healthyLatencyP50Ms} ms, p99 ${hostile.healthyLatencyP99Ms} ms
    trickling insurers' requests by status ${JSON.stringify(hostile.slowRequests)}
    one broker's attacks: 240 000-character operation names ${JSON.stringify(attacks.longNames)}; heavy quote requests ${JSON.stringify(attacks.heavyQuoteRequests)},
      then that tender's proposal and quote requests read ${JSON.stringify(attacks.heavyReads)}; ${attacks.attackerStatusChanges} status changes to ${attacks.attackerEndpoints} slow webhook endpoints
    bystanders: another broker's first page ${ms(attacks.victimReadsMs)}; its webhook events before the attacks ${ms(attacks.victimEventsBeforeMs)}, during them ${ms(attacks.victimEventsDuringMs)}`);
    }

    let documents: DocumentsResult | undefined;
    if (SCENARIOS.has('documents')) {
      const [owner, other] = seeded.brokerCompanies;
      const tender = await orm.em.fork().findOneOrFail(Tender, { brokerCompany: owner.id }, { fields: ['id'] });
      documents = await documentsScenario(
        gw,
        gateway.pid!,
        tender.id,
        await tokenHeaders(gw, orm, { role: Role.BROKER, brokerCompanyId: owner.id }),
        await tokenHeaders(gw, orm, { role: Role.BROKER, brokerCompanyId: other.id }),
      );
      console.log(`  documents: ten 20 MiB uploads at once ${documents.uploaded}/10 in ${documents.uploadMs} ms, downloads ${documents.downloaded}/10 in ${documents.downloadMs} ms
    gateway peak RSS ${documents.peakRssMiB} MiB; a bystander's first page meanwhile p50 ${documents.bystanderP50Ms} ms, p99 ${documents.bystanderP99Ms} ms (${documents.bystanderReads} reads)`);
    }

    if (SCENARIOS.has('access-log')) {
      // The access log's cost (issue 29): a broker's page (internal users' reads are not recorded) on this gateway and
      // on the same build with ACCESS_LOG=off, in turns; CPU per request from each process.
      const off = start(gatewayArgs, gatewayEnv(ACCESS_LOG_OFF_PORT, { ACCESS_LOG: 'off' }));
      processes.push(off);
      const offUrl = `http://127.0.0.1:${ACCESS_LOG_OFF_PORT}`;
      await waitFor(
        'the gateway with ACCESS_LOG=off',
        async () => (await fetch(`${offUrl}/readyz`).catch(() => ({ ok: false }))).ok,
        60_000,
      );
      const broker = await tokenHeaders(gw, orm, { role: Role.BROKER, brokerCompanyId: seeded.brokerCompanies[0].id });
      const page = (host: string) => ({ url: `${host}/api/v1/tenders?limit=50`, headers: broker });
      const graphqlOf = (host: string) => ({
        url: `${host}/graphql`,
        method: 'POST' as const,
        headers: { ...broker, 'content-type': 'application/json' },
        body: graphqlPage,
      });
      // Both warmed alike: the broker's documents are new to both processes.
      for (const options of [page(gw), graphqlOf(gw), page(offUrl), graphqlOf(offUrl)])
        await autocannon({ ...options, connections: CONNECTIONS, amount: 300 });
      figures.push(
        ...(await inTurns([
          { scenario: 'access log on: broker REST page', options: page(gw), pid: gateway.pid },
          { scenario: 'access log off: broker REST page', options: page(offUrl), pid: off.pid },
          { scenario: 'access log on: broker GraphQL page', options: graphqlOf(gw), pid: gateway.pid },
          { scenario: 'access log off: broker GraphQL page', options: graphqlOf(offUrl), pid: off.pid },
        ])),
      );
    }

    let day: (DayResult & { rateLimit: number; peakRssBytes: number }) | undefined;
    if (SCENARIOS.has('day')) {
      // Many clients: two per broker company and per seeded insurer, one per market insurer.
      const clients: MarketClient[] = [];
      for (const company of seeded.brokerCompanies)
        for (let i = 0; i < 2; i++)
          clients.push({
            name: `broker ${company.companyId} #${i}`,
            headers: await tokenHeaders(gw, orm, { role: Role.BROKER, brokerCompanyId: company.id }),
            listPath: '/api/v1/tenders',
          });
      for (const [i, insurer] of [...seeded.insurers, ...seeded.insurers, ...market].entries())
        clients.push({
          name: `insurer ${insurer.name} #${i}`,
          headers: await tokenHeaders(gw, orm, { role: Role.INSURER, insurerId: insurer.id }),
          listPath: '/public/v1/tenders',
        });
      const hostileClient: MarketClient = {
        name: 'hostile broker',
        headers: await tokenHeaders(gw, orm, { role: Role.BROKER, brokerCompanyId: seeded.brokerCompanies[0].id }),
        listPath: '/api/v1/tenders',
      };
      // Quote requests for open tenders, each by its broker's client (the market insurers are new to every tender).
      const brokerOf = new Map(
        seeded.brokerCompanies.map((company) => [company.id, clients.find((c) => c.name.includes(company.companyId))!]),
      );
      const asks = (
        await orm.em.fork().find(
          Tender,
          { status: { $in: [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.REOPENED] } },
          {
            fields: ['id', 'brokerCompany'],
            limit: Math.ceil(DAY_QUOTE_RATE * DAY_SECONDS),
            orderBy: { id: 'asc' },
          },
        )
      ).map((tender, i) => ({
        tenderId: tender.id,
        insurerId: market[i % market.length].id,
        headers: brokerOf.get(tender.brokerCompany.id)!.headers,
      }));
      const rateLimit = dayRateLimit(clients.length, seeded.brokerCompanies.length * 2);

      let reference: DayResult['reference'];
      if (withReference) {
        // The reads against the in-memory reference at the same rate, each of its answers first checked byte for byte.
        const tenders = await tendersOfClients(gw, clients);
        const memory = `http://127.0.0.1:${MEMORY_REFERENCE_PORT}`;
        for (const path of [...pagesOf('/api/v1/tenders'), ...new Set(tenders.flat().map((id) => `/api/v1/tenders/${id}`))]) {
          const [ours, theirs] = await Promise.all(
            [gw, memory].map(async (host) => (await fetch(`${host}${path}`, { headers: auth })).text()),
          );
          if (ours !== theirs) throw new Error(`the memory reference answers ${path} differently from the gateway`);
        }
        console.log('  day: the memory reference answers every page and tender of the mix byte for byte as the gateway does');
        reference = await referenceDay(memory, clients, auth, tenders);
      }

      // A fresh production start with a real rate limit: well-behaved clients stay under it, the hostile one does not.
      const previous = gateway;
      const gone = new Promise((resolve) => previous.once('exit', resolve));
      previous.kill('SIGTERM');
      await Promise.race([gone, sleep(15_000)]);
      gateway = start(gatewayArgs, gatewayEnv(GATEWAY_PORT, { RATE_LIMIT_PER_MINUTE: String(rateLimit) }));
      processes.push(gateway);
      await waitFor('the day gateway', async () => (await fetch(`${gw}/readyz`)).ok, 60_000);
      const dayRss = watchRss(gateway.pid!);
      const result = await dayInTheMarket(orm.em.fork(), gw, clients, asks, hostileClient);
      day = { ...result, reference, rateLimit, peakRssBytes: dayRss.stop() };
      printDay(day, rateLimit, clients.length, day.peakRssBytes);
    }

    const by = (name: string) =>
      figures.find((f) => f.scenario.startsWith(name)) ?? { requestsPerSecond: NaN, p50Ms: NaN, cpuMsPerRequest: NaN };
    /** Each ratio against both references: the one that reads the token's standing per request and the in-memory one. */
    const againstReferences = (ours: string, theirs: string) => ({
      statement: by(ours).requestsPerSecond / by(`reference: ${theirs}`).requestsPerSecond,
      memory: by(ours).requestsPerSecond / by(`memory reference: ${theirs}`).requestsPerSecond,
    });
    /** How much more a request costs than another, by throughput (1 = the same). */
    const costRatio = (heavier: string, lighter: string) => by(lighter).requestsPerSecond / by(heavier).requestsPerSecond;
    const cpu = (name: string) => by(name).cpuMsPerRequest ?? NaN;
    const ratios = {
      restVsBaseline: by('REST /api').requestsPerSecond / by('baseline: first').requestsPerSecond,
      graphqlVsBaseline: by('GraphQL').requestsPerSecond / by('baseline: first').requestsPerSecond,
      restVsReference: againstReferences('REST /api', 'first page'),
      graphqlVsReference: againstReferences('GraphQL', 'first page'),
      limit10VsReference: againstReferences('REST limit 10', 'limit 10'),
      limit200VsReference: againstReferences('REST limit 200', 'limit 200'),
      countVsReference: againstReferences('REST limit 1', 'limit 1'),
      deepVsReference: againstReferences('REST deep', 'deep page'),
      oneTenderVsReference: againstReferences('REST one tender', 'one tender'),
      notModifiedVsPage: by('REST the same page, unchanged').requestsPerSecond / by('REST /api').requestsPerSecond,
      notModifiedVsTender: by('REST one tender, unchanged').requestsPerSecond / by('REST one tender').requestsPerSecond,
      deepSkipVsFirst: Object.fromEntries(
        ['internal', 'broker', 'insurer'].map((role) => [role, costRatio(`${role}: deep page (skip`, `${role}: first page`)]),
      ),
      deepCursorVsFirst: Object.fromEntries(
        ['internal', 'broker', 'insurer'].map((role) => [role, costRatio(`${role}: deep page (after`, `${role}: first page`)]),
      ),
      cpuMsPerRequest: {
        rest: cpu('REST /api'),
        graphql: cpu('GraphQL'),
        reference: cpu('reference: first page'),
        memoryReference: cpu('memory reference: first page'),
        oneTender: cpu('REST one tender'),
        referenceOneTender: cpu('reference: one tender'),
        memoryReferenceOneTender: cpu('memory reference: one tender'),
        limit10: cpu('REST limit 10'),
        referenceLimit10: cpu('reference: limit 10'),
        memoryReferenceLimit10: cpu('memory reference: limit 10'),
      },
      // The access log's cost: CPU per request with it on over with it off (1 = free).
      accessLogCpu: {
        rest: cpu('access log on: broker REST') / cpu('access log off: broker REST'),
        graphql: cpu('access log on: broker GraphQL') / cpu('access log off: broker GraphQL'),
      },
      // The fixed part of a request and the part per tender, from limits 10 and 200.
      cpuMsPerTender: {
        gateway: (cpu('REST limit 200') - cpu('REST limit 10')) / 190,
        reference: (cpu('reference: limit 200') - cpu('reference: limit 10')) / 190,
        memoryReference: (cpu('memory reference: limit 200') - cpu('memory reference: limit 10')) / 190,
      },
    };
    const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
    const line = (what: string, value: string, target: string, ok?: boolean) =>
      `${what.padEnd(48)}${value.padStart(9)}   ${target.padEnd(16)} ${ok === undefined ? '' : mark(ok)}`;
    const fixed = (perRequest: number, perTender: number, tenders: number) => perRequest - perTender * tenders;
    /** A throughput ratio against each reference, with its target where there is one (issues 6 and 31). */
    const versus = (what: string, ratio: { statement: number; memory: number }, statementTarget?: number, memoryTarget?: number) => [
      line(
        `${what} / raw reference`,
        ratio.statement.toFixed(2),
        statementTarget === undefined ? '(printed)' : `target ≥ ${statementTarget}`,
        statementTarget === undefined ? undefined : ratio.statement >= statementTarget,
      ),
      line(
        `${what} / in-memory reference`,
        ratio.memory.toFixed(2),
        memoryTarget === undefined ? '(printed)' : `target ≥ ${memoryTarget}`,
        memoryTarget === undefined ? undefined : ratio.memory >= memoryTarget,
      ),
    ];
    // Only the targets of the scenarios that ran.
    const targets = [
      ...(SCENARIOS.has('reads')
        ? [
            line('REST page / baseline throughput', ratios.restVsBaseline.toFixed(2), '(printed)'),
            line('GraphQL page / baseline throughput', ratios.graphqlVsBaseline.toFixed(2), '(printed)'),
            ...(withReference
              ? [
                  ...versus('REST page', ratios.restVsReference, 0.6, 0.8),
                  ...versus('GraphQL page', ratios.graphqlVsReference, 0.45, 0.65),
                  ...versus('REST limit 10', ratios.limit10VsReference, undefined, 0.7),
                  ...versus('REST limit 200', ratios.limit200VsReference, 0.6, 0.8),
                  ...versus('REST limit 1 (count)', ratios.countVsReference),
                  ...versus('REST deep page', ratios.deepVsReference),
                  ...versus('REST one tender', ratios.oneTenderVsReference, 0.25, 0.4),
                  line(
                    'CPU per request, page of 50',
                    `${ratios.cpuMsPerRequest.rest.toFixed(2)}`,
                    `ms (references ${ratios.cpuMsPerRequest.reference.toFixed(2)}, in memory ${ratios.cpuMsPerRequest.memoryReference.toFixed(2)})`,
                  ),
                  line(
                    'CPU per request, limit 10',
                    `${ratios.cpuMsPerRequest.limit10.toFixed(2)}`,
                    `ms (references ${ratios.cpuMsPerRequest.referenceLimit10.toFixed(2)}, in memory ${ratios.cpuMsPerRequest.memoryReferenceLimit10.toFixed(2)})`,
                  ),
                  line(
                    'CPU per request, one tender',
                    `${ratios.cpuMsPerRequest.oneTender.toFixed(2)}`,
                    `ms (references ${ratios.cpuMsPerRequest.referenceOneTender.toFixed(2)}, in memory ${ratios.cpuMsPerRequest.memoryReferenceOneTender.toFixed(2)})`,
                  ),
                  line(
                    'CPU fixed per request / per tender',
                    `${fixed(ratios.cpuMsPerRequest.rest, ratios.cpuMsPerTender.gateway, 50).toFixed(2)}`,
                    `ms + ${ratios.cpuMsPerTender.gateway.toFixed(3)} ms/tender (reference ${fixed(ratios.cpuMsPerRequest.reference, ratios.cpuMsPerTender.reference, 50).toFixed(2)} + ${ratios.cpuMsPerTender.reference.toFixed(3)}, in memory ${fixed(ratios.cpuMsPerRequest.memoryReference, ratios.cpuMsPerTender.memoryReference, 50).toFixed(2)} + ${ratios.cpuMsPerTender.memoryReference.toFixed(3)})`,
                  ),
                ]
              : []),
            line('unchanged poll (304) / full page', ratios.notModifiedVsPage.toFixed(1), 'target ≥ 5', ratios.notModifiedVsPage >= 5),
            line('unchanged tender (304) / full tender', ratios.notModifiedVsTender.toFixed(1), '(printed)'),
            ...['internal', 'broker', 'insurer'].flatMap((role) => [
              line(
                `${role}: deep page by skip / first page`,
                ratios.deepSkipVsFirst[role].toFixed(2),
                'cost; ≤ 1.3',
                ratios.deepSkipVsFirst[role] <= 1.3,
              ),
              line(
                `${role}: deep page by cursor / first page`,
                ratios.deepCursorVsFirst[role].toFixed(2),
                'cost; ≤ 1.3',
                ratios.deepCursorVsFirst[role] <= 1.3,
              ),
            ]),
          ]
        : []),
      ...(strict
        ? [
            ...(
              [
                ['one tender', 'broker', 0.5],
                ['page of 10', 'broker', 0.8],
                ['page of 50', 'broker', 0.85],
                ['page of 200', 'broker', 0.85],
                ['GraphQL page of 50', 'broker', 0.7],
                ['page of 50, hit', 'broker', 1.5],
                ['one tender', 'insurer', undefined],
                ['page of 50', 'insurer', undefined],
                ['page of 50', 'internal', undefined],
              ] as const
            ).flatMap(([what, who, target]) => {
              const ratio = strict.ratio(what, who);
              const cpu = strict.cpu(what, who);
              return [
                line(
                  `strict ref.: ${who} ${what}`,
                  ratio.toFixed(2),
                  target === undefined ? '(printed)' : `target ≥ ${target}`,
                  target === undefined ? undefined : ratio >= target,
                ),
                line(`  CPU per request, gateway vs reference`, cpu.gateway.toFixed(2), `ms vs ${cpu.reference.toFixed(2)} ms`),
              ];
            }),
            line('strict: kept-answer lookups', `${strict.lookups.hit}/${strict.lookups.miss}`, 'hits/misses'),
          ]
        : []),
      ...(kept
        ? [
            line('kept: page of 50, hit / miss throughput', (kept.hitOverMiss('page') ?? NaN).toFixed(2), '(printed)'),
            line('kept: one tender, hit / miss throughput', (kept.hitOverMiss('tender') ?? NaN).toFixed(2), '(printed)'),
            ...(withReference
              ? [
                  line(
                    'kept: repeated page (hit) / in-memory ref.',
                    kept.versusReference('page', 'hit').toFixed(2),
                    'target ≥ 1.5',
                    kept.versusReference('page', 'hit') >= 1.5,
                  ),
                  line(
                    'kept: page, miss / in-memory reference',
                    kept.versusReference('page', 'miss').toFixed(2),
                    'target ≥ 0.85',
                    kept.versusReference('page', 'miss') >= 0.85,
                  ),
                  line('kept: one tender (hit) / in-memory ref.', kept.versusReference('tender', 'hit').toFixed(2), '(printed)'),
                  line(
                    'kept: one tender, miss / in-memory ref.',
                    kept.versusReference('tender', 'miss').toFixed(2),
                    'target ≥ 0.5',
                    kept.versusReference('tender', 'miss') >= 0.5,
                  ),
                ]
              : []),
            line('kept: lookups on the gateway', `${kept.lookups.hit}/${kept.lookups.miss}`, 'hits/misses'),
          ]
        : []),
      ...(SCENARIOS.has('access-log')
        ? (['rest', 'graphql'] as const).map((surface) =>
            line(
              `access log on / off, CPU per ${surface === 'rest' ? 'REST' : 'GraphQL'} page`,
              ratios.accessLogCpu[surface].toFixed(2),
              'target ≤ 1.10',
              ratios.accessLogCpu[surface] <= 1.1,
            ),
          )
        : []),
      ...(SCENARIOS.has('callback')
        ? [
            // p99 < 20 ms by the gateway's own histogram: at least 99 % answered within its 20 ms bucket.
            line(
              `callbacks within 20 ms at ${CALLBACK_RATE}/s (gateway)`,
              `${callback.within20Ms.toFixed(1)} %`,
              'target ≥ 99 %',
              callback.within20Ms >= 99,
            ),
            line('callback p99 at the load generator', `${callback.figure.p99Ms} ms`, '(printed)'),
            line('callbacks honoured', `${callback.honoured}/${callback.sent}`, 'target all', callback.honoured === callback.sent),
          ]
        : []),
      line('gateway RSS at peak (before hostile)', `${(peakRss / 2 ** 20).toFixed(0)} MB`, 'target < 200 MB', peakRss < 200 * 2 ** 20),
      line('start to ready', `${readyMs} ms`, 'target < 2000 ms', readyMs < 2000),
      ...(day
        ? [
            ...day.gateway.kinds
              .filter((k) => k.kind.startsWith('poll') || k.kind === 'page')
              .map((k) => line(`day: ${k.kind} p99`, `${k.p99Ms} ms`, 'target < 50 ms', k.p99Ms < 50)),
            ...(day.reference?.kinds ?? [])
              .filter((k) => k.kind.startsWith('poll') || k.kind === 'page')
              .map((k) => line(`day, memory reference: ${k.kind} p99`, `${k.p99Ms} ms`, '(printed)')),
            line('day: quote requests lost', String(day.quotes.lost), 'target 0', day.quotes.lost === 0),
            line(
              'day: gateway peak RSS',
              `${(day.peakRssBytes / 2 ** 20).toFixed(0)} MB`,
              'target < 200 MB',
              day.peakRssBytes < 200 * 2 ** 20,
            ),
          ]
        : []),
      ...(hostile ? [line('hostile load survived', hostile.survived ? 'yes' : 'NO', 'target yes', hostile.survived)] : []),
    ];
    console.log(`\n  targets (printed, not asserted)\n${targets.map((line) => `  ${line}`).join('\n')}`);

    mkdirSync('bench/results', { recursive: true });
    const store = BENCH_DOCUMENT_STORE === 'filesystem' ? '' : `-${BENCH_DOCUMENT_STORE}`;
    const file = join('bench/results', `${new Date().toISOString().replace(/[:.]/g, '-')}-${engine}${store}.json`);
    const machine = {
      cpu: cpus()[0]?.model,
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: process.platform,
    };
    const settings = {
      tenders: TENDERS,
      seconds: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      callbackRate: CALLBACK_RATE,
      documentStore: BENCH_DOCUMENT_STORE,
    };
    writeFileSync(
      file,
      `${JSON.stringify({ engine, machine, settings, figures, ratios, kept: kept && { lookups: kept.lookups }, strict: strict && { lookups: strict.lookups }, callback: { sent: callback.sent, honoured: callback.honoured, drainMs: callback.drainMs, within20Ms: callback.within20Ms, insurerTraffic: insurerSystem.traffic }, peakRssBytes: peakRss, readyMs, hostile, documents, day }, null, 2)}\n`,
    );
    console.log(`\n  wrote ${file}`);
  } finally {
    for (const child of processes) child.kill('SIGTERM');
    await sleep(1000);
    await documentStore.close();
    await insurerSystem.simulator?.close();
    insurerSystem.server.close();
    trickling.server.closeAllConnections();
    trickling.server.close();
    await orm.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Quote requests for CALLBACKS open tenders go to the silent insurer, which acknowledges and waits; then its
 * callbacks arrive at a fixed CALLBACK_RATE per second, one per request. Every callback must lead to a fetched quote.
 */
async function callbackScenario(
  em: EntityManager,
  gw: string,
  auth: Record<string, string>,
  insurer: Insurer,
  credentials: { appId: string; secret: string },
): Promise<{ figure: Figure; sent: number; honoured: number; drainMs: number; within20Ms: number }> {
  const tenders = await em.find(
    Tender,
    { status: { $in: [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.REOPENED] } },
    { fields: ['id'], limit: CALLBACKS, orderBy: { id: 'asc' } },
  );
  const mutation = `mutation ($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }`;
  const queue = [...tenders];
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let tender = queue.shift(); tender; tender = queue.shift()) {
        const input = {
          tenderId: tender.id,
          insurerIds: [insurer.id],
          limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
          riskInformation: { typeOfBusiness: 'bench' },
        };
        const response = await fetch(`${gw}/graphql`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ query: mutation, variables: { input } }),
        });
        const body = (await response.json()) as { errors?: unknown[] };
        if (body.errors) throw new Error(`requestQuotes: ${JSON.stringify(body.errors)}`);
      }
    }),
  );
  const count = (status: QuoteRequestStatus[]) => em.fork().count(QuoteRequest, { insurer: insurer.id, status: { $in: status } });
  await waitFor('acknowledgements', async () => (await count([QuoteRequestStatus.PROCESSING])) === tenders.length);
  const references = (await em.fork().find(QuoteRequest, { insurer: insurer.id }, { fields: ['insurerReference'] })).map(
    (r) => r.insurerReference!,
  );

  const insurerAuth = `Bearer ${await token(gw, credentials)}`;
  const sentAt = Date.now();
  const result = await pacedPosts(
    `${gw}${CALLBACK_PATH}`,
    { authorization: insurerAuth },
    references.map((reference) => JSON.stringify({ quote_request_id: reference })),
    CALLBACK_RATE,
    202,
  );
  const within = async (seconds: number) =>
    `${(await serverSideShare(gw, CALLBACK_PATH, seconds)).toFixed(1)} % within ${seconds * 1000} ms`;
  console.log(
    `  callbacks answered by the gateway (its own histogram): ${await within(0.005)}, ${await within(0.01)}, ${await within(0.02)}, ${await within(0.1)}`,
  );
  const within20Ms = await serverSideShare(gw, CALLBACK_PATH, 0.02);
  if (process.env.BENCH_DEBUG)
    console.log(
      (await (await fetch(`${gw}/metrics`)).text())
        .split('\n')
        .filter((l) => /eventloop_lag|quote_requests|heap_space_size_(total|used)|process_resident/.test(l) && !l.startsWith('#'))
        .join('\n'),
    );
  const done = [QuoteRequestStatus.QUOTED, QuoteRequestStatus.DECLINED];
  const honoured = await waitFor(
    'every callback to be honoured',
    async () => {
      const fetched = await count(done);
      return fetched === references.length ? fetched : false;
    },
    120_000,
  ).catch(async () => count(done));
  return {
    sent: references.length,
    honoured,
    drainMs: Date.now() - sentAt,
    within20Ms,
    figure: {
      scenario: `callback at ${CALLBACK_RATE} req/s, paced (${references.length})`,
      requestsPerSecond: result.requestsPerSecond,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      non2xx: result.unexpected,
      errors: result.errors,
    },
  };
}

/** The share (%) of a route's requests the gateway itself answered within `seconds`, from its Prometheus histogram. */
async function serverSideShare(gw: string, route: string, seconds: number): Promise<number> {
  const text = await (await fetch(`${gw}/metrics`)).text();
  const count = (le: string) =>
    text
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('http_request_duration_seconds_bucket') && line.includes(`route="${route}"`) && line.includes(`le="${le}"`),
      )
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  const total = count('+Inf');
  return total ? (count(String(seconds)) / total) * 100 : NaN;
}

async function main(): Promise<void> {
  console.log(
    `${TENDERS} tenders; ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections; ${cpus().length} cores (${cpus()[0]?.model}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  for (const engine of ENGINES) {
    if (engine !== 'sqlite' && engine !== databaseEngine(POSTGRES_URL)) throw new Error(`unknown engine ${engine}`);
    await benchEngine(engine);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  // The engine's cleanup has run; what a failed scenario left open (a simulator's timers, sockets) must not keep the
  // bench waiting for its timeouts.
  process.exit(1);
});
