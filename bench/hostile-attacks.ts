import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * The attacks of issue 25 that once took the production start down or starved other clients, each from one
 * client within its rate limit, and the bystanders whose service they must not touch: a broker reading its first
 * page, and a broker waiting for its own webhook events.
 */

type Headers = Record<string, string>;

export interface AttackSetup {
  /** One broker client's token: it sends every attack. */
  attacker: Headers;
  /** Another broker company's client: reads its tenders and hears of its own status changes. */
  victim: Headers;
  analyst: Headers;
  /** Open tenders of the attacker's company: the first takes the quote requests, the others the status changes. */
  attackerTenders: string[];
  /** An open tender of the victim's company. */
  victimTender: string;
  /** Ten insurers to ask for quotes. */
  insurerIds: string[];
  /** The webhook receivers' certificate, which the gateway trusts. */
  certificate: Certificate;
}

export interface AttackResult {
  longNames: Record<string, number>;
  heavyQuoteRequests: Record<string, number>;
  heavyReads: Record<string, number>;
  attackerStatusChanges: number;
  attackerEndpoints: number;
  victimEventsBeforeMs: number[];
  victimEventsDuringMs: number[];
  victimReadsMs: number[];
}

/** 240 000 characters of operation name: about 640 such documents once filled a 192 MB heap. */
const LONG_NAME = 'N'.repeat(240_000);
/** 16 KiB of `additional`, as `[{},{},…]`: the most objects the size limit lets one request carry. */
const HEAVY_ADDITIONAL = { filler: Array.from({ length: 5_400 }, () => ({})) };
const SLOW_ENDPOINTS = 10;
const SLOW_RECEIVER_MS = 4000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (tally: Record<string, number>, key: string | number) => (tally[key] = (tally[key] ?? 0) + 1);

interface Certificate {
  keyFile: string;
  /** For the gateway's NODE_EXTRA_CA_CERTS: it trusts the receivers. */
  certFile: string;
}

/** A self-signed certificate for 127.0.0.1: the production start calls https webhook endpoints only. */
export function loopbackCertificate(dir: string): Certificate {
  const keyFile = join(dir, 'receiver.key');
  const certFile = join(dir, 'receiver.crt');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { keyFile, certFile };
}

/** A webhook delivery's body, as far as the receiver reads it. */
interface WebhookDelivery {
  type: string;
  occurred_at: string;
  data: { tender_id: string };
}

/** A webhook receiver that answers 204 after `delayMs`, calling `onEvent` with each delivery's body as it arrives. */
async function startReceiver(certificate: Certificate, delayMs: number, onEvent: (event: WebhookDelivery) => void) {
  const server: Server = createServer({ key: readFileSync(certificate.keyFile), cert: readFileSync(certificate.certFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        onEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookDelivery);
      } catch {
        // not a delivery
      }
      setTimeout(() => res.writeHead(204).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

/**
 * Registers the webhook endpoints (the victim's fast one, the attacker's ten slow ones) and measures the victim's
 * event latency before any attack; `run(until)` then attacks until then and measures the bystanders meanwhile.
 */
export async function prepareAttacks(gw: string, setup: AttackSetup): Promise<{ run(until: number): Promise<AttackResult> }> {
  const graphql = async (headers: Headers, query: string, variables: Record<string, unknown> = {}) => {
    try {
      const response = await fetch(`${gw}/graphql`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return {
        status: response.status,
        body: (await response.json()) as { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[] },
      };
    } catch {
      return { status: 0, body: {} };
    }
  };
  /** An HTTP status, and the first error's code where there is one. */
  const outcome = (answer: Awaited<ReturnType<typeof graphql>>) =>
    `${answer.status}${answer.body.errors?.[0]?.extensions?.code ? ` ${answer.body.errors[0].extensions.code}` : ''}`;

  const victimLatencies: number[] = [];
  let victimWaiting = false;
  const victimReceiver = await startReceiver(setup.certificate, 0, (event) => {
    if (event.data?.tender_id === setup.victimTender && victimWaiting) victimLatencies.push(Date.now() - Date.parse(event.occurred_at));
  });
  const slowReceiver = await startReceiver(setup.certificate, SLOW_RECEIVER_MS, () => undefined);
  const register = (headers: Headers, url: string) =>
    graphql(headers, 'mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }', {
      input: { url, eventTypes: ['TENDER_STATUS_CHANGED'] },
    });
  const victimEndpoint = await register(setup.victim, victimReceiver.url);
  if (victimEndpoint.status !== 200)
    throw new Error(`the victim could not register its webhook endpoint: ${JSON.stringify(victimEndpoint.body)}`);
  let attackerEndpoints = 0;
  for (let i = 0; i < SLOW_ENDPOINTS; i++)
    if ((await register(setup.attacker, `${slowReceiver.url}/${i}`)).status === 200) attackerEndpoints++;

  /** Closes and reopens a tender: two status changes. */
  const toggle = async (headers: Headers, tenderId: string) => {
    const closed = await graphql(headers, 'mutation ($id: ID!) { closeTender(tenderId: $id, reason: "bench") { status } }', {
      id: tenderId,
    });
    const reopened = await graphql(headers, 'mutation ($id: ID!) { reopenTender(tenderId: $id) { status } }', { id: tenderId });
    return (closed.status === 200 ? 1 : 0) + (reopened.status === 200 ? 1 : 0);
  };
  /** The victim's events, one status change at a time, each awaited (at most 30 s) before the next. */
  const victimEvents = async (stopAt: number) => {
    const seen: number[] = [];
    while (Date.now() < stopAt) {
      const before = victimLatencies.length;
      victimWaiting = true;
      await toggle(setup.victim, setup.victimTender);
      const deadline = Date.now() + 30_000;
      while (victimLatencies.length < before + 2 && Date.now() < deadline) await sleep(20);
      victimWaiting = false;
      seen.push(...victimLatencies.slice(before));
      await sleep(500);
    }
    return seen;
  };

  const victimEventsBeforeMs = await victimEvents(Date.now() + 5000);
  return { run: (until) => attack(until) };

  async function attack(until: number): Promise<AttackResult> {
    const longNames: Record<string, number> = {};
    const heavyQuoteRequests: Record<string, number> = {};
    const heavyReads: Record<string, number> = {};
    const victimReadsMs: number[] = [];
    let attackerStatusChanges = 0;

    const longNameFlood = (async () => {
      for (let n = 0; Date.now() < until; n++) {
        const query = `query ${LONG_NAME}${n} { __typename }`;
        // Twice: the second use is the one that compiles a document.
        for (let i = 0; i < 2; i++) count(longNames, outcome(await graphql(setup.attacker, query)));
      }
    })();
    const heavyQuotes = (async () => {
      const [tenderId] = setup.attackerTenders;
      const input = {
        tenderId,
        insurerIds: setup.insurerIds,
        limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        riskInformation: { typeOfBusiness: 'bench', additional: HEAVY_ADDITIONAL },
      };
      while (Date.now() < until) {
        count(
          heavyQuoteRequests,
          outcome(
            await graphql(setup.attacker, 'mutation ($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', { input }),
          ),
        );
        // What once killed the gateway again after every restart: a cheap-looking read of that tender.
        count(
          heavyReads,
          outcome(await graphql(setup.analyst, 'query ($id: ID!) { proposal(tenderId: $id) { taxRate } }', { id: tenderId })),
        );
        count(
          heavyReads,
          outcome(
            await graphql(setup.analyst, 'query ($id: ID!) { quoteRequests(tenderId: $id) { id status riskInformation } }', {
              id: tenderId,
            }),
          ),
        );
        await sleep(100);
      }
    })();
    const webhookFlood = (async () => {
      for (let i = 0; Date.now() < until; i++)
        attackerStatusChanges += await toggle(setup.attacker, setup.attackerTenders[1 + (i % (setup.attackerTenders.length - 1))]);
    })();
    const victimReads = (async () => {
      while (Date.now() < until) {
        const started = Date.now();
        const ok = await fetch(`${gw}/api/v1/tenders?limit=10`, { headers: setup.victim }).then(
          async (response) => (await response.arrayBuffer(), response.ok),
          () => false,
        );
        if (ok) victimReadsMs.push(Date.now() - started);
        await sleep(100);
      }
    })();
    const [victimEventsDuringMs] = await Promise.all([victimEvents(until), longNameFlood, heavyQuotes, webhookFlood, victimReads]);
    victimReceiver.server.close();
    slowReceiver.server.closeAllConnections();
    slowReceiver.server.close();
    return {
      longNames,
      heavyQuoteRequests,
      heavyReads,
      attackerStatusChanges,
      attackerEndpoints,
      victimEventsBeforeMs,
      victimEventsDuringMs,
      victimReadsMs,
    };
  }
}
