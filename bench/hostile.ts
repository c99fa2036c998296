import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/core';
import { Insurer } from '../src/insurers';
import { QuoteRequestStatus, QuoteRequest } from '../src/quotes';
import { Tender, TenderStatus } from '../src/tenders';
import { prepareAttacks, type AttackResult, type AttackSetup } from './hostile-attacks';

/**
 * The "hostile" scenario of `npm run bench` (issue 11): for HOSTILE_SECONDS the production start gets, all at
 * once, the heaviest GraphQL operations the limits allow, a stream of distinct large documents (each sent twice),
 * and quote requests to insurers that trickle their answers a byte a second; meanwhile a healthy insurer is asked
 * for quotes. Meanwhile one broker client sends the attacks of issue 25 (bench/hostile-attacks.ts): long operation
 * names, quote requests as heavy as the limits allow, and a flood of status changes to ten slow webhook endpoints.
 * It reports whether the gateway survived, its peak RSS, what each attack was answered, and the bystanders'
 * latency: the healthy insurer's quotes, another broker's first page and its own webhook events.
 */
export const HOSTILE_SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS ?? 60);
export const SLOW_INSURERS = 8;
export const HEAVY_CONNECTIONS = 4;

const FIELDS = `fragment F on Tender { id status product taxRate createdAt updatedAt changesMetadata lineOfBusiness { name }
  customer { name companyId address { street houseNumber zip city country } } brokerCompany { name } personInCharge { email firstName lastName } }`;
/** 49 pages of 200: 9 849 estimated rows, under the 10 000 per operation. */
const HEAVY = `{ ${Array.from({ length: 49 }, (_, i) => `t${i}: tenders(limit: 200, skip: ${i * 200}) { count items { ...F } }`).join(' ')} } ${FIELDS}`;
const distinct = (n: number) =>
  `{ ${Array.from({ length: 40 }, (_, i) => `d${n}_${i}: tenders(limit: 1, skip: ${(n + i) % 1000}) { items { id status product } }`).join(' ')} }`;

export interface HostileResult {
  survived: boolean;
  peakRssMiB: number;
  heavy: Record<string, number>;
  distinctDocuments: number;
  healthyQuotes: number;
  healthyLatencyP50Ms: number;
  healthyLatencyP99Ms: number;
  slowRequests: Record<string, number>;
  attacks: AttackResult;
}

/** An insurer system that sends its headers at once and then one byte a second, for ever. */
export async function startTricklingInsurer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 1000);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export const percentile = (values: number[], p: number) =>
  values.length ? [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] : NaN;

function rssMiB(pid: number): number {
  try {
    return (
      Number(
        execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
          .toString()
          .trim(),
      ) / 1024
    );
  } catch {
    return 0;
  }
}

export async function hostileScenario(
  em: EntityManager,
  gw: string,
  gatewayPid: number,
  auth: Record<string, string>,
  /** One token per heavy connection: a client has one expensive operation at a time. */
  heavyTokens: string[],
  insurers: { healthy: Insurer; slow: Insurer[] },
  attackSetup: AttackSetup,
): Promise<HostileResult> {
  const post = (body: unknown, headers = auth) =>
    fetch(`${gw}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(
      async (response) => (await response.arrayBuffer(), response.status),
      () => 0,
    );
  const open = await em.find(
    Tender,
    { status: { $in: [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.REOPENED] } },
    { fields: ['id'], limit: HOSTILE_SECONDS * 2, orderBy: { id: 'desc' } },
  );
  const attacks = await prepareAttacks(gw, attackSetup);
  const until = Date.now() + HOSTILE_SECONDS * 1000;
  let peak = rssMiB(gatewayPid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(gatewayPid))), 200);
  const heavy: Record<string, number> = {};
  let distinctDocuments = 0;

  const heavyLoad = heavyTokens.map(async (token) => {
    while (Date.now() < until) {
      const status = await post({ query: HEAVY }, { authorization: `Bearer ${token}` });
      heavy[status] = (heavy[status] ?? 0) + 1;
      // As a well-behaved client would: after a 503, wait the Retry-After (1 s).
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  });
  const documents = (async () => {
    for (let n = 0; Date.now() < until; n++) {
      await post({ query: distinct(n) });
      await post({ query: distinct(n) });
      distinctDocuments++;
    }
  })();
  const quoting = (async () => {
    const mutation = 'mutation ($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }';
    for (const tender of open) {
      if (Date.now() >= until) break;
      const insurerIds = [insurers.healthy.id, ...insurers.slow.map((insurer) => insurer.id)];
      await post({
        query: mutation,
        variables: {
          input: {
            tenderId: tender.id,
            insurerIds,
            limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
            riskInformation: { typeOfBusiness: 'bench' },
          },
        },
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  const [attackResult] = await Promise.all([attacks.run(until), ...heavyLoad, documents, quoting]);
  // The healthy insurer's last requests get a few seconds to be quoted.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  clearInterval(sampler);

  const survived = await fetch(`${gw}/healthz`).then(
    (response) => response.ok,
    () => false,
  );
  const healthy = await em.fork().find(QuoteRequest, { insurer: insurers.healthy.id, status: QuoteRequestStatus.QUOTED });
  const latencies = healthy.map((request) => request.quotedAt!.getTime() - request.createdAt.getTime());
  const slowRequests: Record<string, number> = {};
  for (const request of await em
    .fork()
    .find(QuoteRequest, { insurer: { $in: insurers.slow.map((insurer) => insurer.id) } }, { fields: ['status'] })) {
    slowRequests[request.status] = (slowRequests[request.status] ?? 0) + 1;
  }
  return {
    survived,
    peakRssMiB: Math.round(peak),
    heavy,
    distinctDocuments,
    healthyQuotes: healthy.length,
    healthyLatencyP50Ms: percentile(latencies, 0.5),
    healthyLatencyP99Ms: percentile(latencies, 0.99),
    slowRequests,
    attacks: attackResult,
  };
}
