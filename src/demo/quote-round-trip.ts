import { createHash } from 'node:crypto';

/**
 * `npm run demo`: one quote round trip against a running gateway (`npm start`), over its public APIs only, as an
 * integrator's script would do it: a broker token, quotes requested from the simulator's insurers on a demo
 * tender, every state change as it happens, then the proposal overview and the quote slips an insurer listed with its
 * quote (downloaded, their SHA-256 checked). Imports nothing of the gateway.
 */
const base = (process.env.GATEWAY_URL ?? 'http://localhost:4000').replace(/\/+$/, '');
const credentials = { app_id: process.env.DEMO_APP_ID ?? 'demo-broker', secret: process.env.DEMO_SECRET ?? 'demo-broker-secret' };
const INSURERS = Number(process.env.DEMO_INSURERS ?? 3);
const TIMEOUT_MS = Number(process.env.DEMO_TIMEOUT_MS ?? 30_000);
const FINAL = ['QUOTED', 'DECLINED', 'FAILED', 'CANCELLED'];

interface DemoTender {
  id: string;
  product: string;
  customer: { name: string } | null;
  riskAssessment: { status: string; questionSet: { version: number } } | null;
}

interface QuoteRequest {
  id: string;
  status: string;
  failureReason: string | null;
  insurer: { name: string };
  createdAt: string;
  acknowledgedAt: string | null;
  callbackReceivedAt: string | null;
  quotedAt: string | null;
}

const FIELDS = 'id status failureReason insurer { name } createdAt acknowledgedAt callbackReceivedAt quotedAt';

/** The way to a final status, with when the gateway recorded each step: none is missed between two polls. */
function steps(request: QuoteRequest): { status: string; at: string | null }[] {
  const path = [
    { status: 'QUEUED', at: request.createdAt },
    { status: 'PROCESSING', at: request.acknowledgedAt },
    { status: 'AVAILABLE', at: request.callbackReceivedAt },
  ];
  const reached = path.filter((step) => step.at !== null);
  return FINAL.includes(request.status) ? [...reached, { status: request.status, at: request.quotedAt }] : reached;
}

const started = Date.now();
const elapsed = (at = Date.now()) => `${String(Math.max(0, at - started)).padStart(6)} ms`;

async function call<T>(path: string, init: RequestInit & { token?: string } = {}): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
  }).catch((error: Error) => {
    throw new Error(`no gateway at ${base} (${error.message}): start it with npm start, or set GATEWAY_URL`);
  });
  const body = (await response.json()) as T & { detail?: string };
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${body.detail ?? JSON.stringify(body)}`);
  return body;
}

async function graphql<T>(token: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const result = await call<{ data?: T; errors?: { message: string }[] }>('/graphql', {
    method: 'POST',
    token,
    body: JSON.stringify({ query, variables }),
  });
  if (result.errors?.length) throw new Error(result.errors.map((error) => error.message).join('; '));
  return result.data!;
}

const money = (amount: number) => amount.toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

async function main(): Promise<void> {
  const { access_token: token } = await call<{ access_token: string }>('/auth/token', {
    method: 'POST',
    body: JSON.stringify(credentials),
  });
  console.log(`${elapsed()}  token for ${credentials.app_id}`);

  // A tender whose risk assessment is submitted, if the broker has one: each insurer is then sent only the answers
  // it requires (docs/risk-assessment.md); else the broker's latest open tender, with risk information given here.
  const { tenders } = await graphql<{ tenders: { items: DemoTender[] } }>(
    token,
    `
      {
        tenders(status: [QUOTES_AVAILABLE, IN_NEGOTIATION, REOPENED], sort: [{ field: UPDATED_AT, direction: DESC }], limit: 10) {
          items {
            id
            product
            customer {
              name
            }
            riskAssessment {
              status
              questionSet {
                version
              }
            }
          }
        }
      }
    `,
  );
  const tender = tenders.items.find((item) => item.riskAssessment?.status === 'SUBMITTED') ?? tenders.items[0];
  if (!tender) throw new Error('no tender of this broker takes quotes now (QUOTES_AVAILABLE, IN_NEGOTIATION or REOPENED)');
  console.log(`${elapsed()}  tender ${tender.id}: ${tender.product} for ${tender.customer?.name ?? 'a customer'}`);
  const assessed = tender.riskAssessment?.status === 'SUBMITTED';
  if (assessed)
    console.log(
      `${elapsed()}  risk information from its risk assessment (${tender.product}, question set version ${tender.riskAssessment!.questionSet.version})`,
    );

  const { insurers } = await graphql<{ insurers: { id: string; name: string }[] }>(token, '{ insurers { id name } }');
  const chosen = insurers.slice(0, INSURERS);
  const { requestQuotes } = await graphql<{ requestQuotes: QuoteRequest[] }>(
    token,
    `mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { ${FIELDS} } }`,
    {
      input: {
        tenderId: tender.id,
        insurerIds: chosen.map((insurer) => insurer.id),
        limits: [
          { insuranceSum: 1_000_000, deductible: 10_000 },
          { insuranceSum: 2_000_000, deductible: 25_000 },
        ],
        ...(assessed
          ? {}
          : { riskInformation: { turnover: { amount: 12_000_000, currency: 'EUR' }, typeOfBusiness: 'Software development' } }),
      },
    },
  );
  const ours = new Set(requestQuotes.map((request) => request.id));
  const shown = new Map<string, number>();
  const report = (request: QuoteRequest) => {
    const reached = steps(request);
    for (const step of reached.slice(shown.get(request.id) ?? 0)) {
      const at = step.at ? Date.parse(step.at) : Date.now();
      const why = FINAL.includes(step.status) && request.failureReason ? ` (${request.failureReason})` : '';
      console.log(`${elapsed(at)}  ${request.insurer.name.padEnd(28)} ${step.status}${why}`);
    }
    shown.set(request.id, reached.length);
  };
  requestQuotes.forEach(report);

  const deadline = Date.now() + TIMEOUT_MS;
  let current: QuoteRequest[] = requestQuotes;
  while (!current.every((request) => FINAL.includes(request.status))) {
    if (Date.now() > deadline) throw new Error(`not every quote request settled within ${TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const data = await graphql<{ quoteRequests: QuoteRequest[] }>(token, `query($id: ID!) { quoteRequests(tenderId: $id) { ${FIELDS} } }`, {
      id: tender.id,
    });
    current = data.quoteRequests.filter((request) => ours.has(request.id));
    current.forEach(report);
  }

  const { proposal } = await graphql<{
    proposal: {
      taxRate: number | null;
      cheapest: {
        insuranceSum: number;
        deductible: number;
        insurer: { name: string };
        option: { premium: number; premiumWithTax: number };
      }[];
    };
  }>(
    token,
    'query($id: ID!) { proposal(tenderId: $id) { taxRate cheapest { insuranceSum deductible insurer { name } option { premium premiumWithTax } } } }',
    { id: tender.id },
  );
  console.log(`\nProposal overview (tax rate ${proposal.taxRate ?? '?'}): the cheapest offer per limit`);
  for (const offer of proposal.cheapest) {
    console.log(
      `  ${money(offer.insuranceSum).padStart(16)} / deductible ${money(offer.deductible).padStart(12)}   ${offer.insurer.name.padEnd(28)} premium ${money(offer.option.premium)}, with tax ${money(offer.option.premiumWithTax)}`,
    );
  }
  await showSlips(token, tender.id, current);
  console.log(
    `\nMore: GET ${base}/api/v1/tenders/${tender.id} (REST) or { proposal(tenderId: "${tender.id}") { entries { ... } } } (GraphQL).`,
  );
  if (!current.some((request) => request.status === 'QUOTED')) process.exitCode = 1;
}

/** The quote documents of our requests: listed by the REST route, downloaded through the content route, checked. */
async function showSlips(token: string, tenderId: string, requests: QuoteRequest[]): Promise<void> {
  const { payload } = await call<{
    payload: { _id: string; kind: string; filename: string; size: number; sha256: string; quote_request_id: string | null }[];
  }>(`/api/v1/tenders/${tenderId}/documents`, { token });
  const byRequest = new Map(requests.map((request) => [request.id, request]));
  const slips = payload.filter((document) => document.kind === 'QUOTE' && byRequest.has(document.quote_request_id ?? ''));
  console.log(`\nQuote documents (${slips.length})`);
  for (const slip of slips) {
    const response = await fetch(`${base}/api/v1/tenders/${tenderId}/documents/${slip._id}/content`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const checked = response.ok && createHash('sha256').update(bytes).digest('hex') === slip.sha256;
    console.log(
      `  ${byRequest.get(slip.quote_request_id!)!.insurer.name.padEnd(28)} ${slip.filename} (${slip.size} bytes): downloaded ${bytes.length} bytes, SHA-256 ${checked ? 'matches' : 'DOES NOT MATCH'}`,
    );
    if (!checked) process.exitCode = 1;
  }
}

main().catch((error: Error) => {
  console.error(`demo failed: ${error.message}`);
  process.exitCode = 1;
});
