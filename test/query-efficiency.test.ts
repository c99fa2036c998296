import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { QuoteOption, QuoteRequestStatus, QuoteRequest } from '../src/quotes';
import { SeedService, type SeedResult } from '../src/seed/seed.service';
import { partiesChanged, Tender } from '../src/tenders';
import { getJson, graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';

let gateway: Gateway;
let seeded: SeedResult;
const tokens: Record<string, string> = {};
let statements = 0;

/**
 * SQL statements the request `run` makes (the dispatcher is off, so nothing else talks to the database). The rate
 * limit's and the access log's are not counted: they are sent in batches on a timer (RATE_LIMIT_SYNC_MS,
 * ACCESS_LOG_FLUSH_MS), whatever the request asks, and a batch of an earlier request can fall into a count.
 */
async function countStatements(run: () => Promise<unknown>): Promise<number> {
  statements = 0;
  await run();
  return statements;
}

beforeAll(async () => {
  // The token standing's reconcile and the quote expiry (their own statements, on timers) a minute and an hour apart:
  // they do not fall into a count.
  gateway = await startGateway({ dispatch: false, env: { TOKEN_STANDING_RECONCILE_MS: '60000', QUOTE_EXPIRY_INTERVAL_MS: '3600000' } });
  seeded = await new SeedService(gateway.em()).run({ tenders: 400, seed: 3 });
  // Quotes for every tender, so nested proposals have rows to load.
  const em = gateway.em();
  for (const tender of await em.find(Tender, {}, { populate: ['invitations'] })) {
    const invitation = tender.invitations.getItems()[0];
    const request = em.create(QuoteRequest, {
      tender,
      insurer: invitation.insurer,
      status: QuoteRequestStatus.QUOTED,
      limits: [{ insurance_sum: 1_000_000, deductible: 0 }],
      riskInformation: {},
      insurerReference: `Q-${tender.id}`,
      requestedBy: 'seed',
    });
    em.create(QuoteOption, { quoteRequest: request, position: 0, insuranceSum: 1_000_000, deductible: 0, premium: 2500 });
  }
  await em.flush();
  tokens.internal = await tokenFor(gateway, Role.INTERNAL);
  tokens.broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: seeded.brokerCompanies[0].id });
  tokens.insurer = await tokenFor(gateway, Role.INSURER, { insurerId: seeded.insurers[0].id });
  (gateway.orm.em.getConnection() as AbstractSqlConnection).getKnex().on('query', (query: { sql: string }) => {
    if (!query.sql.includes('rate_limit_counter') && !query.sql.includes('access_log_entry')) statements++;
  });
});

afterAll(() => gateway?.close());

const NESTED = `query($limit: Int) { tenders(limit: $limit) { count items {
  id status lineOfBusiness { name } customer { name address { city } } brokerCompany { name } personInCharge { email }
  policyDocumentation { status } history { toStatus }
  proposal { taxRate entries { insurer { name } quoteRequest { status options { premium premiumWithTax cheapest } } } cheapest { insurer { name } } }
} } }`;

describe('statements per request do not grow with the page size', () => {
  for (const role of ['internal', 'broker', 'insurer']) {
    const prefix = role === 'insurer' ? '/public/v1' : '/api/v1';

    it(`REST ${prefix}/tenders for the ${role}: limit 1 and limit 200 cost the same statements`, async () => {
      // Counted once per revision of what the viewer sees: both requests below find it kept. Another page than
      // theirs, so that they are answered by running the read, not from a kept answer.
      await getJson(gateway, `${prefix}/tenders?limit=2`, tokens[role]);
      const one = await countStatements(() => getJson(gateway, `${prefix}/tenders?limit=1`, tokens[role]));
      const many = await countStatements(async () =>
        expect((await getJson(gateway, `${prefix}/tenders?limit=200`, tokens[role])).body.payload.length).toBeGreaterThan(20),
      );
      expect(many).toBe(one);
      // The feed revision (the ETag and the kept count) and the page; the token's standing is checked from memory.
      expect(one).toBeGreaterThanOrEqual(2);
      expect(one).toBeLessThanOrEqual(3);
      // The same page again, at the same revision: its kept answer, after the revision's read alone.
      expect(await countStatements(() => getJson(gateway, `${prefix}/tenders?limit=200`, tokens[role]))).toBe(1);
    });

    it(`GraphQL tenders with nested customer, history and proposal for the ${role}: limit 1 and 200 the same`, async () => {
      await graphql(gateway, tokens[role], NESTED, { limit: 1 }); // the count kept, as above
      const one = await countStatements(() => graphql(gateway, tokens[role], NESTED, { limit: 1 }));
      const many = await countStatements(async () => {
        const { body } = await graphql(gateway, tokens[role], NESTED, { limit: 200 });
        expect(body.errors).toBeUndefined();
        expect(body.data.tenders.items.length).toBeGreaterThan(20);
      });
      expect(many).toBe(one);
      expect(one).toBeGreaterThanOrEqual(3);
      expect(one).toBeLessThanOrEqual(7);
    });
  }
});

describe('list queries use indexes', () => {
  /** The SELECTs on `tender` that one REST request runs (the page and its count; an insurer's count is on its invitations). */
  async function tenderQueries(path: string, token: string): Promise<{ sql: string; bindings: unknown[] }[]> {
    const captured: { sql: string; bindings: unknown[] }[] = [];
    // A new revision for every audience: the count is taken again, not found kept, so its plan is checked too.
    await partiesChanged(gateway.em());
    const knex = (gateway.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    const listener = (query: { sql: string; bindings?: unknown[] }) => {
      if (/^select .* from [`"]tender(_invitation)?[`"] as/i.test(query.sql))
        captured.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    knex.on('query', listener);
    try {
      expect((await getJson(gateway, path, token)).status).toBe(200);
    } finally {
      knex.removeListener('query', listener);
    }
    expect(captured.length).toBeGreaterThanOrEqual(2);
    return captured;
  }

  const postgres = () => gateway.orm.config.get('clientUrl')?.startsWith('postgres') ?? false;

  /** Plans with sequential scans discouraged: a full scan of `tender` that remains means no index fits. */
  async function plan(query: { sql: string; bindings: unknown[] }): Promise<string> {
    const knex = (gateway.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    if (postgres()) {
      return knex.transaction(async (trx) => {
        await trx.raw('set local enable_seqscan = off');
        const rows = (await trx.raw(`explain ${query.sql}`, query.bindings as never[])).rows as { 'QUERY PLAN': string }[];
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    }
    // Indented by depth, so a step inside the page's id subquery can be told from one of the outer query.
    const rows = await knex.raw<{ id: number; parent: number; detail: string }[]>(
      `explain query plan ${query.sql}`,
      query.bindings as never[],
    );
    const depth = new Map<number, number>([[0, 0]]);
    return rows
      .map((row) => {
        depth.set(row.id, (depth.get(row.parent) ?? 0) + 1);
        return `${'  '.repeat(depth.get(row.id)! - 1)}${row.detail}`;
      })
      .join('\n');
  }

  const cases: [string, string][] = [
    ['the default page', '/api/v1/tenders?limit=50'],
    ['a deep page', '/api/v1/tenders?skip=350&limit=50'],
    ['sorted by updated_at', '/api/v1/tenders?sort=-updated_at&limit=50'],
    ['filtered by status', '/api/v1/tenders/closed?limit=50'],
    ['incremental sync', '/api/v1/tenders?updated_since=2026-01-01T00:00:00Z&sort=updated_at'],
  ];

  // No engine scans the tender table in full. On SQLite, internal users and brokers also find the page's ids by
  // walking the sort key's index, without sorting; the outer query then orders only the page's own rows (at most
  // `limit`) after joining their relations. An insurer's pages are driven by its invitations (an index search),
  // then sorted, bounded by the tenders it was invited to. PostgreSQL's cost-based choice between an index walk
  // and a sort depends on table statistics, which a 400-row test table does not have, so sorts are not asserted there.
  it.each(cases)('%s scans no table in full, and sorts no more than the page for internal users and brokers', async (_label, path) => {
    for (const role of ['internal', 'broker', 'insurer']) {
      const rolePath = role === 'insurer' ? path.replace('/api/v1', '/public/v1') : path;
      for (const query of await tenderQueries(rolePath, tokens[role])) {
        const text = await plan(query);
        const context = `${role} ${rolePath}\n${query.sql}\n${text}`;
        expect(text, context).not.toMatch(/Seq Scan on tender\b|SCAN (t0|t|page|tender)\b(?! USING)/);
        if (role === 'insurer' || postgres()) continue;
        expect(text, context).not.toMatch(/^ +USE TEMP B-TREE FOR ORDER BY/m);
        if (!/[`"]id[`"] in \(select/i.test(query.sql)) expect(text, context).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      }
    }
  });
});
