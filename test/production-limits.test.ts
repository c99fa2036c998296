import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClientService } from '../src/auth';
import { Role } from '../src/access';
import { ASSUMED_ROWS } from '../src/api/graphql/operation-cost';
import { SeedService } from '../src/seed/seed.service';
import { restRequest, type Credentials } from './helpers/gateway';
import { discardProductionData, freePort, productionData, spawnGateway, type GatewayProcess } from './helpers/gateway-process';

/**
 * DESIGN 6 (fairness) against the production start: the compiled `dist/` under `npm run start:prod`'s heap cap,
 * loaded with the heaviest operations each role may send.
 */
const TENDER_FIELDS = `id status product redacted taxRate createdAt updatedAt changesMetadata
  lineOfBusiness { id name } customer { id name companyId address { street houseNumber zip city country } }
  brokerCompany { id name address { street houseNumber zip city country } }
  personInCharge { id accountId email firstName lastName salutation } policyDocumentation { status policyNumber confirmedAt }`;
const NESTED = `proposal { taxRate orderedOptionId entries { insurer { name } quoteRequest { status attempts options { premium premiumWithTax } } } }
  history { at actorRole fromStatus toStatus reason }`;

const FIELDS = `fragment F on Tender { ${TENDER_FIELDS} }`;
const FRAGMENTS = `${FIELDS} fragment N on Tender { ${NESTED} }`;
const aliases = (count: number, body: (i: number) => string) =>
  `{ ${Array.from({ length: count }, (_, i) => `t${i}: ${body(i)}`).join(' ')} }`;
/** The attack of issue 11: within the static depth, alias, token and field-cost limits, 50 × 200 tenders with their proposals and histories. */
const ATTACK = aliases(50, () => 'tenders(limit: 200) { items { id proposal { taxRate } history { at } } }');
/** The heaviest shapes the row limit (10 000) admits: the most tenders, and the most nested rows. */
const WIDEST = `${aliases(49, (i) => `tenders(limit: 200, skip: ${(i * 37) % 400}) { count items { ...F } }`)} ${FIELDS}`;
const DEEPEST = `{ tenders(limit: 200) { count items { ...F ...N } } other: tenders(limit: 100, skip: 200) { items { ...F ...N } } } ${FRAGMENTS}`;

const ROLES = [Role.INSURER, Role.BROKER, Role.INTERNAL, Role.ANALYST];
const CLIENTS_PER_ROLE = 3;

let dataDir: string;
let gateway: GatewayProcess;
const tokens = new Map<Role, string[]>();

const post = (path: string, body: unknown, token?: string) => restRequest(gateway, 'POST', path, token, body);

beforeAll(async () => {
  const prepared = await productionData('tender-exchange-prod-');
  dataDir = prepared.dataDir;
  const { env, orm } = prepared;
  const credentials = new Map<Role, Credentials[]>();
  try {
    const seeded = await new SeedService(orm.em.fork()).run({ tenders: 1500, seed: 11 });
    for (const role of ROLES) {
      const binding =
        role === Role.INSURER
          ? { insurerId: seeded.insurers[0].id }
          : role === Role.BROKER
            ? { brokerCompanyId: seeded.brokerCompanies[0].id }
            : {};
      const created: Credentials[] = [];
      for (let i = 0; i < CLIENTS_PER_ROLE; i++) {
        const { client, secret } = await new ApiClientService(orm.em.fork()).create({ role, ...binding });
        created.push({ appId: client.appId, secret });
      }
      credentials.set(role, created);
    }
  } finally {
    await orm.close();
  }
  gateway = await spawnGateway(dataDir, await freePort(), { ...env, RATE_LIMIT_PER_MINUTE: '100000' }, { production: true });
  for (const [role, list] of credentials) {
    const issued = [];
    for (const { appId, secret } of list) issued.push((await post('/auth/token', { app_id: appId, secret })).body.access_token as string);
    tokens.set(role, issued);
  }
}, 180_000);

afterAll(() => discardProductionData(gateway, dataDir));

describe('the production start under the heaviest GraphQL operations', () => {
  it('survives concurrent heaviest operations from every role: pages beyond the row limit are refused unread, the heaviest allowed are answered or turned away with 503 and Retry-After, others keep their service, /healthz answers', async () => {
    const storm = ROLES.flatMap((role) =>
      tokens
        .get(role)!
        .flatMap((token) =>
          [ATTACK, WIDEST, DEEPEST].map((query) => post('/graphql', { query }, token).then((answer) => ({ role, query, ...answer }))),
        ),
    );
    // Meanwhile, a cheap REST page for a broker is served.
    const bystander = await fetch(`${gateway.url}/api/v1/tenders?limit=5`, {
      headers: { authorization: `Bearer ${tokens.get(Role.BROKER)![0]}` },
    });
    const answers = await Promise.all(storm);

    expect(bystander.status).toBe(200);
    expect(gateway.alive()).toBe(true);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    // 50 pages × (the count + 200 × (a tender, its history)): a proposal's tax rate is the tender's own, no rows of its own.
    const attackRows = 50 * (1 + 200 * (1 + ASSUMED_ROWS.history));
    for (const answer of answers) {
      if (answer.query === ATTACK) {
        expect(answer.status).toBe(400);
        expect(answer.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
        expect(answer.body.errors[0].message).toContain(`may read up to ${attackRows} rows; at most 10000 are allowed`);
      } else if (answer.status === 503) {
        expect(answer.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
        expect(answer.headers.get('retry-after')).toBe('2'); // GRAPHQL_QUEUE_TIMEOUT_MS (2 s): what a refused operation may wait at most
      } else {
        expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
        expect(answer.body.errors).toBeUndefined();
      }
    }
    // Heavy work was done, not only refused; and once the storm is over, every role's heaviest operation runs.
    expect(answers.some((answer) => answer.status === 200)).toBe(true);
    for (const role of ROLES) {
      const after = await post('/graphql', { query: WIDEST }, tokens.get(role)![0]);
      expect(after.status, role).toBe(200);
      expect(after.body.data.t0.items.length, role).toBeGreaterThan(0);
    }
  }, 120_000);

  it('keeps serving others while the heaviest allowed operation runs: another client gets page after page meanwhile, not one page per operation', async () => {
    let heavyDone = false;
    const heavy = post('/graphql', { query: WIDEST }, tokens.get(Role.INTERNAL)![0]).then((answer) => {
      heavyDone = true;
      return answer;
    });
    // Past its parsing and planning: its statements are running.
    await new Promise((resolve) => setTimeout(resolve, 100));
    let pagesMeanwhile = 0;
    while (!heavyDone) {
      const page = await fetch(`${gateway.url}/api/v1/tenders?limit=5`, {
        headers: { authorization: `Bearer ${tokens.get(Role.BROKER)![1]}` },
      });
      expect(page.status).toBe(200);
      if (!heavyDone) pagesMeanwhile++;
    }
    expect((await heavy).status).toBe(200);
    // A process held from the operation's first statement to its last answers no page before it ends.
    expect(pagesMeanwhile).toBeGreaterThanOrEqual(5);
  }, 60_000);

  it('keeps its memory bounded over hundreds of distinct large documents, each sent twice', async () => {
    const token = tokens.get(Role.INTERNAL)![0];
    const before = gateway.rssMiB();
    let peak = before;
    // Large documents, each different, that are cheap to run: pages of a line of business that does not exist.
    const documents = Array.from(
      { length: 200 },
      (_, n) =>
        `{ ${Array.from({ length: 40 }, (_, i) => `d${n}_${i}: tenders(limit: 1, lineOfBusinessId: "none") { items { id status product lineOfBusiness { name } customer { name } } }`).join(' ')} }`,
    );
    for (let round = 0; round < 2; round++) {
      for (let start = 0; start < documents.length; start += 4) {
        const answers = await Promise.all(documents.slice(start, start + 4).map((query) => post('/graphql', { query }, token)));
        for (const answer of answers) expect(answer.status).toBe(200);
        peak = Math.max(peak, gateway.rssMiB());
      }
    }
    expect(gateway.alive()).toBe(true);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    // The old heap is capped at 192 MB; a cache growing per document would have ended the process long before.
    expect(peak, `RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB`).toBeLessThan(400);
  }, 180_000);
});
