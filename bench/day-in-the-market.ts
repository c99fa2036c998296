import { Agent, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/core';
import { QuoteRequest, QuoteRequestStatus } from '../src/quotes';
import { percentile } from './hostile';

/**
 * The "day" scenario of `npm run bench` (issue 31): many partners at once. DAY_CONNECTIONS keep-alive connections,
 * each a partner's and each bound to one of many broker and insurer clients, send at a fixed DAY_RATE in all
 * (open loop: request i is due at start + i / rate, and its latency counts from then, so a request that waits for
 * its connection counts that wait): 80 % conditional polls of the partner's list page with the ETag of its last
 * answer, 15 % full pages, 5 % single tenders. Meanwhile brokers ask the simulated market insurers for quotes at
 * DAY_QUOTE_RATE (the simulator acknowledges, calls back, and the gateway fetches the quote), and one hostile client
 * sends its first page at DAY_HOSTILE_RATE, far past its rate limit. At the end the quote requests get a bounded
 * time to end, and those that did not are counted as lost.
 */
export const DAY_SECONDS = Number(process.env.BENCH_DAY_SECONDS ?? 20);
const DAY_RATE = Number(process.env.BENCH_DAY_RATE ?? 150);
const DAY_CONNECTIONS = Number(process.env.BENCH_DAY_CONNECTIONS ?? 200);
export const DAY_QUOTE_RATE = Number(process.env.BENCH_DAY_QUOTE_RATE ?? 10);
const DAY_HOSTILE_RATE = Number(process.env.BENCH_DAY_HOSTILE_RATE ?? 100);
/** Unmeasured seconds at the same rate first: the restarted gateway's JIT and caches. */
const WARM_UP_SECONDS = 3;
/** How long the quote requests of the scenario get to end after it, seconds. */
const DRAIN_SECONDS = 60;
/** Tenders a partner reads one by one: a few of its list's first page (each checked against the reference). */
const TENDERS_PER_CLIENT = 10;

export interface MarketClient {
  name: string;
  headers: Record<string, string>;
  /** `/api/v1/tenders` (brokers) or `/public/v1/tenders` (insurers). */
  listPath: string;
}

interface Partner {
  client: MarketClient;
  agent: Agent;
  etag?: string;
  tenderIds: string[];
}

interface QuoteAsk {
  tenderId: string;
  insurerId: string;
  /** The tender's broker's client. */
  headers: Record<string, string>;
}

interface Answer {
  status: number;
  etag?: string;
  body?: string;
}

function get(agent: Agent, url: string, headers: Record<string, string>, keepBody = false, method = 'GET', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => keepBody && chunks.push(chunk));
      res.once('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          etag: res.headers.etag,
          body: keepBody ? Buffer.concat(chunks).toString('utf8') : undefined,
        }),
      );
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** A small deterministic generator: the gateway and the reference get the same sequence of kinds and pages. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pagePath = (listPath: string, draw: number) => `${listPath}?limit=${draw < 0.5 ? 10 : 50}&skip=${(Math.floor(draw * 10) % 5) * 50}`;
const POLL_QUERY = '?limit=50';

/** Every page a partner asks for (the poll's page among them), for the reference's byte-for-byte check. */
export const pagesOf = (listPath: string): string[] =>
  [10, 50].flatMap((limit) => [0, 1, 2, 3, 4].map((k) => `${listPath}?limit=${limit}&skip=${k * 50}`)).concat(`${listPath}${POLL_QUERY}`);

interface Recorded {
  latencies: Map<string, number[]>;
  statuses: Map<string, number>;
  answered: number;
  errors: number;
}

const record = (into: Recorded, kind: string, status: number | string, ms: number) => {
  const list = into.latencies.get(kind) ?? [];
  list.push(ms);
  into.latencies.set(kind, list);
  into.statuses.set(String(status), (into.statuses.get(String(status)) ?? 0) + 1);
  into.answered++;
};

/** Sends `rate` × `seconds` requests, request i due at now + i / rate, through `send`; resolves when all are answered. */
async function paced(rate: number, seconds: number, send: (i: number, due: number) => Promise<void>): Promise<void> {
  const start = performance.now();
  const total = Math.floor(rate * seconds);
  const inFlight: Promise<void>[] = [];
  for (let sent = 0; sent < total;) {
    const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
    for (; sent < due; sent++) inFlight.push(send(sent, start + (sent * 1000) / rate));
    await sleep(1);
  }
  await Promise.all(inFlight);
}

/** The partners' mix at DAY_RATE for `seconds`: polls, pages and tenders over their own connections. */
async function readMix(base: string, partners: Partner[], seconds: number, into: Recorded, seed = 31): Promise<void> {
  const draw = random(seed);
  await paced(DAY_RATE, seconds, async (i, due) => {
    const partner = partners[i % partners.length];
    const kindDraw = draw();
    const detail = draw();
    const { listPath, headers } = partner.client;
    let kind: string;
    let path: string;
    let conditional = false;
    if (kindDraw < 0.8) {
      kind = 'poll';
      path = `${listPath}${POLL_QUERY}`;
      conditional = partner.etag !== undefined;
    } else if (kindDraw < 0.95 || partner.tenderIds.length === 0) {
      kind = 'page';
      path = pagePath(listPath, detail);
    } else {
      kind = 'tender';
      path = `${listPath}/${partner.tenderIds[Math.floor(detail * partner.tenderIds.length)]}`;
    }
    try {
      const answer = await get(partner.agent, `${base}${path}`, conditional ? { ...headers, 'if-none-match': partner.etag! } : headers);
      if (kind === 'poll') {
        if (answer.etag) partner.etag = answer.etag;
        kind = answer.status === 304 ? 'poll → 304' : `poll → ${answer.status}`;
      }
      record(into, kind, answer.status, performance.now() - due);
    } catch {
      into.errors++;
    }
  });
}

interface KindFigure {
  kind: string;
  count: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
}

interface MixFigures {
  requestsPerSecond: number;
  kinds: KindFigure[];
  statuses: Record<string, number>;
  errors: number;
}

const figuresOf = (recorded: Recorded, seconds: number): MixFigures => ({
  requestsPerSecond: Math.round(recorded.answered / seconds),
  kinds: [...recorded.latencies.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, values]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const at = (p: number) => Math.round(percentile(sorted, p) * 10) / 10;
      return { kind, count: values.length, p50Ms: at(0.5), p99Ms: at(0.99), p999Ms: at(0.999) };
    }),
  statuses: Object.fromEntries(recorded.statuses),
  errors: recorded.errors,
});

const emptyRecord = (): Recorded => ({ latencies: new Map(), statuses: new Map(), answered: 0, errors: 0 });

/** One keep-alive connection per partner, spread over the clients in turn. */
function partnersOf(clients: MarketClient[]): Partner[] {
  return Array.from({ length: DAY_CONNECTIONS }, (_, i) => ({
    client: clients[i % clients.length],
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    tenderIds: [],
  }));
}

/** Each partner's first poll: its connection opened, the ETag of its page, and a few of its tenders' ids. */
async function prime(base: string, partners: Partner[]): Promise<void> {
  for (const partner of partners) {
    const answer = await get(partner.agent, `${base}${partner.client.listPath}${POLL_QUERY}`, partner.client.headers, true);
    if (answer.status !== 200) throw new Error(`${partner.client.name}: its first page answered ${answer.status}`);
    partner.etag = answer.etag;
    partner.tenderIds = ((JSON.parse(answer.body!) as { payload: { _id: string }[] }).payload ?? [])
      .slice(0, TENDERS_PER_CLIENT)
      .map((tender) => tender._id);
  }
}

export interface DayResult {
  gateway: MixFigures;
  reference?: MixFigures;
  quotes: {
    asked: number;
    queued: number;
    ended: number;
    lost: number;
    drainMs: number;
    mutation: KindFigure;
    statuses: Record<string, number>;
  };
  hostile: { sent: number; rateLimited: number; statuses: Record<string, number> };
  /**
   * What tells the gateway's delays from the load generator's: the tender reads the gateway answered within 50 ms by
   * its own histogram (from a request's arrival to its answer), and the load generator's event-loop delay (it also
   * plays the simulated insurers).
   */
  apart?: { gatewayReadsWithin50Ms: number; loadGeneratorDelayP99Ms: number; loadGeneratorDelayMaxMs: number };
}

/** The gateway's answered tender reads (GET of a tenders route), all and within `seconds`, by its latency histogram. */
async function tenderReadsAnswered(gw: string, seconds: number): Promise<{ all: number; within: number }> {
  const lines = (await (await fetch(`${gw}/metrics`)).text())
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('http_request_duration_seconds_bucket') && line.includes('method="GET"') && /route="[^"]*\/tenders/.test(line),
    );
  const sum = (le: string) =>
    lines.filter((line) => line.includes(`le="${le}"`)).reduce((total, line) => total + Number(line.split(' ').pop()), 0);
  return { all: sum('+Inf'), within: sum(String(seconds)) };
}

/** The ids of the tenders each client reads one by one (a few of its first page), in the order of `clients`. */
export async function tendersOfClients(base: string, clients: MarketClient[]): Promise<string[][]> {
  const partners = partnersOf(clients).slice(0, clients.length);
  await prime(base, partners);
  for (const partner of partners) partner.agent.destroy();
  return partners.map((partner) => partner.tenderIds);
}

/**
 * The same reads at the same rate against the in-memory reference: every partner as the internal client (the
 * reference answers no other), the tenders each reads those its client sees at the gateway, polls answered in full
 * (the reference has no conditional reads). No quotes, no hostile client.
 */
export async function referenceDay(
  reference: string,
  clients: MarketClient[],
  internal: Record<string, string>,
  tenders: string[][],
): Promise<MixFigures> {
  const partners = partnersOf(clients.map((client) => ({ ...client, headers: internal, listPath: '/api/v1/tenders' })));
  partners.forEach((partner, i) => {
    partner.tenderIds = tenders[i % clients.length];
  });
  await readMix(reference, partners, WARM_UP_SECONDS, emptyRecord(), 7);
  const recorded = emptyRecord();
  const started = performance.now();
  await readMix(reference, partners, DAY_SECONDS, recorded);
  const figures = figuresOf(recorded, (performance.now() - started) / 1000);
  partners.forEach((partner) => partner.agent.destroy());
  return figures;
}

export async function dayInTheMarket(
  em: EntityManager,
  gw: string,
  clients: MarketClient[],
  asks: QuoteAsk[],
  hostile: MarketClient,
): Promise<Omit<DayResult, 'reference'>> {
  const partners = partnersOf(clients);
  await prime(gw, partners);
  await readMix(gw, partners, WARM_UP_SECONDS, emptyRecord(), 7);

  const reads = emptyRecord();
  const quoting = emptyRecord();
  const hostileStatuses = new Map<string, number>();
  const hostileRecord = { ...emptyRecord(), statuses: hostileStatuses };
  const quoteAgent = new Agent({ keepAlive: true, maxSockets: 16 });
  const hostileAgent = new Agent({ keepAlive: true, maxSockets: 8 });
  const mutation = 'mutation ($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }';
  const toAsk = asks.slice(0, Math.floor(DAY_QUOTE_RATE * DAY_SECONDS));
  let queued = 0;
  const before = await tenderReadsAnswered(gw, 0.05);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();
  await Promise.all([
    readMix(gw, partners, DAY_SECONDS, reads),
    paced(DAY_QUOTE_RATE, toAsk.length / DAY_QUOTE_RATE, async (i, due) => {
      const ask = toAsk[i];
      const body = JSON.stringify({
        query: mutation,
        variables: {
          input: {
            tenderId: ask.tenderId,
            insurerIds: [ask.insurerId],
            limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
            riskInformation: { typeOfBusiness: 'bench' },
          },
        },
      });
      try {
        const answer = await get(quoteAgent, `${gw}/graphql`, { ...ask.headers, 'content-type': 'application/json' }, true, 'POST', body);
        const ok = answer.status === 200 && !(JSON.parse(answer.body!) as { errors?: unknown }).errors;
        if (ok) queued++;
        // A mutation answered 200 with GraphQL errors is counted apart: it queued nothing.
        record(quoting, 'quote mutation', answer.status === 200 && !ok ? '200 with errors' : answer.status, performance.now() - due);
      } catch {
        quoting.errors++;
      }
    }),
    paced(DAY_HOSTILE_RATE, DAY_SECONDS, async (_, due) => {
      try {
        const answer = await get(hostileAgent, `${gw}${hostile.listPath}${POLL_QUERY}`, hostile.headers);
        record(hostileRecord, 'hostile', answer.status, performance.now() - due);
      } catch {
        hostileRecord.errors++;
      }
    }),
  ]);
  const elapsed = (performance.now() - started) / 1000;
  delay.disable();
  const after = await tenderReadsAnswered(gw, 0.05);
  for (const agent of [quoteAgent, hostileAgent, ...partners.map((partner) => partner.agent)]) agent.destroy();

  // Nothing lost: every request queued meanwhile ends (quoted, or the simulated insurer's other outcome) within the bound.
  const insurerIds = [...new Set(toAsk.map((ask) => ask.insurerId))];
  const ended = [QuoteRequestStatus.QUOTED, QuoteRequestStatus.DECLINED];
  const count = (status?: QuoteRequestStatus[]) =>
    em.fork().count(QuoteRequest, { insurer: { $in: insurerIds }, ...(status ? { status: { $in: status } } : {}) });
  const drainStarted = Date.now();
  while ((await count(ended)) < queued && Date.now() - drainStarted < DRAIN_SECONDS * 1000) await sleep(200);
  const endedCount = await count(ended);
  const mutationFigure = figuresOf(quoting, elapsed).kinds[0] ?? { kind: 'quote mutation', count: 0, p50Ms: NaN, p99Ms: NaN, p999Ms: NaN };
  return {
    gateway: figuresOf(reads, elapsed),
    quotes: {
      asked: toAsk.length,
      queued,
      ended: endedCount,
      lost: queued - endedCount,
      drainMs: Date.now() - drainStarted,
      mutation: mutationFigure,
      statuses: Object.fromEntries(quoting.statuses),
    },
    hostile: {
      sent: hostileRecord.answered + hostileRecord.errors,
      rateLimited: hostileStatuses.get('429') ?? 0,
      statuses: Object.fromEntries(hostileStatuses),
    },
    apart: {
      gatewayReadsWithin50Ms: ((after.within - before.within) / Math.max(1, after.all - before.all)) * 100,
      loadGeneratorDelayP99Ms: delay.percentile(99) / 1e6,
      loadGeneratorDelayMaxMs: delay.max / 1e6,
    },
  };
}

/** The day gateway's limit per client and minute: half again what the busiest well-behaved client sends at DAY_RATE. */
export function dayRateLimit(clients: number, brokers: number): number {
  const perClient = (DAY_RATE * Math.ceil(DAY_CONNECTIONS / clients)) / DAY_CONNECTIONS + DAY_QUOTE_RATE / Math.max(1, brokers);
  return Math.max(600, Math.ceil(perClient * 60 * 1.5));
}

const row = (k: KindFigure) =>
  `    ${k.kind.padEnd(22)} ${String(k.count).padStart(7)}   p50 ${k.p50Ms.toFixed(1).padStart(6)}   p99 ${k.p99Ms.toFixed(1).padStart(6)}   p999 ${k.p999Ms.toFixed(1).padStart(6)} ms`;

export function printDay(result: DayResult, rateLimit: number, clients: number, peakRssBytes: number): void {
  const { gateway, reference, quotes, hostile } = result;
  console.log(`  day in the market: ${DAY_CONNECTIONS} connections of ${clients} clients at ${DAY_RATE} req/s for ${DAY_SECONDS} s, quotes at ${DAY_QUOTE_RATE}/s, a hostile client at ${DAY_HOSTILE_RATE}/s (limit ${rateLimit}/min per client)
    gateway: ${gateway.requestsPerSecond} req/s answered, statuses ${JSON.stringify(gateway.statuses)}, ${gateway.errors} errors
${gateway.kinds.map(row).join('\n')}
${row(quotes.mutation)}
    quote requests: ${quotes.asked} asked, ${quotes.queued} queued, ${quotes.ended} ended ${quotes.drainMs} ms after the load, lost = ${quotes.lost}; mutations by status ${JSON.stringify(quotes.statuses)}
    hostile client: ${hostile.sent} sent, ${hostile.rateLimited} answered 429, by status ${JSON.stringify(hostile.statuses)}
    gateway peak RSS ${(peakRssBytes / 2 ** 20).toFixed(0)} MiB`);
  if (result.apart)
    console.log(
      `    tender reads the gateway answered within 50 ms by its own histogram: ${result.apart.gatewayReadsWithin50Ms.toFixed(1)} %; the load generator's event-loop delay p99 ${result.apart.loadGeneratorDelayP99Ms.toFixed(1)} ms, max ${result.apart.loadGeneratorDelayMaxMs.toFixed(1)} ms`,
    );
  if (reference)
    console.log(`    memory reference, the same reads at the same rate (polls answered in full): ${reference.requestsPerSecond} req/s, statuses ${JSON.stringify(reference.statuses)}, ${reference.errors} errors
${reference.kinds.map(row).join('\n')}`);
}
