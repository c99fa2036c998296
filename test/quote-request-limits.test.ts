import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { ApiClientService } from '../src/auth';
import { openDatabase } from '../src/database';
import { Insurer } from '../src/insurers';
import { loadConfig } from '../src/platform/config';
import { newId } from '../src/platform/db/ids';
import { LIMITS } from '../src/platform/validation/rules';
import { QuoteOption, QuoteRequest } from '../src/quotes';
import { SubjectivityStage } from '../src/quotes/quote-request-status';
import { SeedService } from '../src/seed/seed.service';
import { Tender, TenderStatus } from '../src/tenders';
import { databaseUrlFor } from './helpers/database';
import { TEST_JWT_SECRET, restRequest, type Credentials } from './helpers/gateway';
import { discardProductionData, freePort, productionData, spawnGateway, type GatewayProcess } from './helpers/gateway-process';

/**
 * Issue 25, item 2, against the production start (`dist/` under `start:prod`'s heap cap): a broker writes the most
 * its tender's quote requests may hold, and the tender stays readable by everyone, whatever they select.
 */
const INSURERS_PER_CALL = 10;
/** `additional` at its 16 KiB, as the JSON that takes the most heap once parsed: empty objects. */
const ELEMENTS = Math.floor((LIMITS.freeJsonBytes - '{"x":[]}'.length + 1) / 3);
const additional = { x: Array.from({ length: ELEMENTS }, () => ({})) };
const LIMITS_INPUT = Array.from({ length: LIMITS.limitsPerQuoteRequest }, (_, i) => ({
  insuranceSum: 1_000_000 * (i + 1),
  deductible: 1000 * i,
}));

const REQUEST_QUOTES = 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id status } }';
const READS = {
  taxRate: 'query($id: ID!) { proposal(tenderId: $id) { taxRate } }',
  proposal: `query($id: ID!) { proposal(tenderId: $id) { taxRate orderedOptionId entries { insurer { name } quoteRequest { status options { premium premiumWithTax cheapest subjectivities { text stage } } } }
    cheapest { insuranceSum deductible option { premium } } } }`,
  statuses:
    'query($id: ID!) { quoteRequests(tenderId: $id) { id status attempts failureReason limits { insuranceSum } options { premium } } }',
  riskInformation: 'query($id: ID!) { quoteRequests(tenderId: $id) { id riskInformation } }',
  proposalRiskInformation: 'query($id: ID!) { proposal(tenderId: $id) { entries { quoteRequest { riskInformation } } } }',
};

let dataDir: string;
let gateway: GatewayProcess;
let tender: Tender;
let insurerIds: string[];
const tokens = new Map<Role, string>();

const post = (path: string, body: unknown, token?: string) => restRequest(gateway, 'POST', path, token, body);

const requestQuotes = (ids: string[]) =>
  post(
    '/graphql',
    {
      query: REQUEST_QUOTES,
      variables: {
        input: { tenderId: tender.id, insurerIds: ids, limits: LIMITS_INPUT, riskInformation: { typeOfBusiness: 'Software', additional } },
      },
    },
    tokens.get(Role.BROKER),
  );

beforeAll(async () => {
  const prepared = await productionData('tender-exchange-quote-limits-');
  dataDir = prepared.dataDir;
  const { env, orm } = prepared;
  const credentials = new Map<Role, Credentials>();
  try {
    await new SeedService(orm.em.fork()).run({ tenders: 50, seed: 25 });
    const em = orm.em.fork();
    tender = await em.findOneOrFail(Tender, { status: TenderStatus.QUOTES_AVAILABLE }, { orderBy: { id: 'asc' } });
    // Insurers on an address production refuses: their requests end FAILED at once, nothing leaves the machine.
    const insurers = Array.from({ length: LIMITS.quoteRequestsPerTender }, (_, i) =>
      em.create(Insurer, {
        name: `Bound ${String(i).padStart(2, '0')}`,
        quoteApiUrl: `http://127.0.0.1:9/insurers/${i}`,
        createdAt: new Date(),
      }),
    );
    await em.flush();
    insurerIds = insurers.map((insurer) => insurer.id);
    for (const [role, binding] of [
      [Role.BROKER, { brokerCompanyId: tender.brokerCompany.id }],
      [Role.ANALYST, {}],
    ] as const) {
      const { client, secret } = await new ApiClientService(orm.em.fork()).create({ role, ...binding });
      credentials.set(role, { appId: client.appId, secret });
    }
  } finally {
    await orm.close();
  }
  gateway = await spawnGateway(dataDir, await freePort(), { ...env, RATE_LIMIT_PER_MINUTE: '100000' }, { production: true });
  for (const [role, { appId, secret }] of credentials)
    tokens.set(role, (await post('/auth/token', { app_id: appId, secret })).body.access_token as string);
}, 180_000);

afterAll(() => discardProductionData(gateway, dataDir));

describe('a tender at the bounds of its quote requests, on the production start', () => {
  it(`holds at most ${LIMITS.quoteRequestsPerTender} quote requests: the issue's 43 calls × 10 insurers with 16 KiB of risk information each are refused past the bound, and the gateway lives`, async () => {
    for (let call = 0; call < LIMITS.quoteRequestsPerTender / INSURERS_PER_CALL; call++) {
      const answer = await requestQuotes(insurerIds.slice(call * INSURERS_PER_CALL, (call + 1) * INSURERS_PER_CALL));
      expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
      expect(answer.body.data.requestQuotes).toHaveLength(INSURERS_PER_CALL);
    }
    // The insurers' requests end (FAILED: address not allowed), so only the bound per tender stands in the way.
    for (let call = LIMITS.quoteRequestsPerTender / INSURERS_PER_CALL; call < 43; call++) {
      const answer = await requestQuotes(insurerIds.slice((call % 5) * INSURERS_PER_CALL, ((call % 5) + 1) * INSURERS_PER_CALL));
      expect(answer.status).toBe(409);
      expect(answer.body.errors[0].extensions.code).toBe('CONFLICT');
      expect(gateway.alive()).toBe(true);
    }
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it('stays readable by analysts and brokers whatever they select, with the most options an insurer may store, and the gateway lives', async () => {
    // What the insurers may add: as many options as the gateway keeps (one per requested limit here), for every request,
    // each with subjectivities up to the bytes a quote may hold (LIMITS.subjectivitiesBytesPerQuote).
    const subjectivities = Array.from({ length: 3 }, (_, i) => ({
      text: `${i}`.repeat(LIMITS.subjectivityText),
      stage: SubjectivityStage.PRE_BIND,
    }));
    expect(Buffer.byteLength(JSON.stringify(LIMITS_INPUT.map(() => subjectivities)))).toBeLessThanOrEqual(
      LIMITS.subjectivitiesBytesPerQuote,
    );
    const orm = await openDatabase(
      loadConfig({
        NODE_ENV: 'test',
        JWT_SECRET: TEST_JWT_SECRET,
        DATA_DIR: dataDir,
        DATABASE_URL: await databaseUrlFor(dataDir),
        DEMO: 'false',
      }),
    );
    try {
      const requests = await orm.em.fork().find(QuoteRequest, { tender: tender.id }, { fields: ['id'] });
      expect(requests).toHaveLength(LIMITS.quoteRequestsPerTender);
      await orm.em.fork().insertMany(
        QuoteOption,
        requests.flatMap((request) =>
          LIMITS_INPUT.map((limit, position) => ({
            id: newId(),
            quoteRequest: request.id,
            position,
            insuranceSum: limit.insuranceSum,
            deductible: limit.deductible,
            premium: 1000 + position,
            subjectivities,
          })),
        ),
      );
    } finally {
      await orm.close();
    }
    for (const role of [Role.ANALYST, Role.BROKER]) {
      for (const [name, query] of Object.entries(READS)) {
        const answer = await post('/graphql', { query, variables: { id: tender.id } }, tokens.get(role));
        expect(answer.status, `${role} ${name}: ${JSON.stringify(answer.body).slice(0, 300)}`).toBe(200);
        expect(answer.body.errors, `${role} ${name}`).toBeUndefined();
        expect(gateway.alive(), `${role} ${name}`).toBe(true);
      }
    }
    const [risk, statuses] = await Promise.all(
      [READS.riskInformation, READS.statuses].map((query) =>
        post('/graphql', { query, variables: { id: tender.id } }, tokens.get(Role.ANALYST)),
      ),
    );
    expect(risk.body.data.quoteRequests).toHaveLength(LIMITS.quoteRequestsPerTender);
    expect(risk.body.data.quoteRequests[0].riskInformation.x).toHaveLength(ELEMENTS);
    expect(
      statuses.body.data.quoteRequests.every((request: { options: unknown[] }) => request.options.length === LIMITS.limitsPerQuoteRequest),
    ).toBe(true);
    expect(gateway.alive()).toBe(true);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  }, 120_000);
});
