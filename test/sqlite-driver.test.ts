import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/database';
import { Customer } from '../src/parties';
import { QuoteRequest } from '../src/quotes';
import { SeedService } from '../src/seed/seed.service';
import { Tender } from '../src/tenders';

/**
 * The gateway's SQLite driver (src/platform/db/sqlite-driver.ts) on a SQLite file, whatever engine the suite runs
 * on: it is the SQLite driver being tested. MikroORM writes values into the SQL text; the driver binds them, so a
 * statement has one text (and one prepared statement) per shape, whatever its values.
 */
let dataDir: string;
let orm: MikroORM;
const texts: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-sqlite-driver-'));
  orm = await openDatabase({ databaseUrl: join(dataDir, 'driver.sqlite') });
  await new SeedService(orm.em.fork()).run({ tenders: 30, seed: 5 });
  (orm.em.getConnection() as AbstractSqlConnection).getKnex().on('query', (query: { sql: string }) => texts.push(query.sql));
});

afterAll(async () => {
  await orm?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The distinct SQL texts the statements of `run` had. */
async function distinctTexts(run: () => Promise<unknown>): Promise<Set<string>> {
  texts.length = 0;
  await run();
  return new Set(texts);
}

describe('the SQLite driver', () => {
  it('gives a statement one SQL text whatever its values: reads, updates with dates, and lists of any values', async () => {
    const tenders = await orm.em.fork().find(Tender, {}, { fields: ['id'], orderBy: { id: 'asc' } });
    expect(tenders.length).toBe(30);

    const reads = await distinctTexts(async () => {
      for (const { id } of tenders) expect((await orm.em.fork().findOneOrFail(Tender, { id }, { fields: ['id'] })).id).toBe(id);
    });
    expect(reads.size).toBe(1);

    const updates = await distinctTexts(async () => {
      for (const [i, { id }] of tenders.entries())
        await orm.em.fork().nativeUpdate(Tender, { id }, { updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) });
    });
    expect(updates.size).toBe(1);
    const stamped = await orm.em.fork().find(Tender, {}, { fields: ['updatedAt'], orderBy: { id: 'asc' } });
    expect(stamped.map((tender) => tender.updatedAt.toISOString())).toEqual(
      tenders.map((_, i) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()),
    );

    // Lists of different values but one length share a text; the values still select exactly their rows.
    const pairs = await distinctTexts(async () => {
      for (let i = 0; i + 1 < tenders.length; i += 2) {
        const ids = [tenders[i].id, tenders[i + 1].id];
        expect((await orm.em.fork().find(Tender, { id: { $in: ids } }, { fields: ['id'] })).map((t) => t.id).sort()).toEqual(ids);
      }
    });
    expect(pairs.size).toBe(1);
  });

  it('stores and finds values exactly as given: quotes, question marks, NUL-free unicode, JSON and nothing at all', async () => {
    const em = orm.em.fork();
    const customer = (await em.find(Customer, {}, { orderBy: { id: 'asc' }, limit: 1 }))[0];
    const name = `O'Brien & "Söhne" ? ?? \\? 🛡️`;
    await em.nativeUpdate(Customer, { id: customer.id }, { name });
    expect((await orm.em.fork().findOneOrFail(Customer, { name })).id).toBe(customer.id);

    const [tender] = await orm.em.fork().find(Tender, {}, { orderBy: { id: 'asc' }, limit: 1 });
    const riskInformation = { type_of_business: "it's ? software", nested: { list: [1, 'two', null] } };
    const stored = orm.em.fork();
    const request = stored.create(QuoteRequest, {
      tender: tender.id,
      insurer: (await stored.findOneOrFail(Tender, { id: tender.id }, { populate: ['invitations'] })).invitations.getItems()[0].insurer,
      limits: [{ insurance_sum: 1_000_000, deductible: 0 }],
      riskInformation,
      insurerReference: null,
      requestedBy: 'driver-test',
    });
    await stored.flush();
    const found = await orm.em
      .fork()
      .findOneOrFail(QuoteRequest, { id: request.id, insurerReference: null }, { populate: ['riskInformation'] });
    expect(found.riskInformation).toEqual(riskInformation);
    expect(found.limits).toEqual([{ insurance_sum: 1_000_000, deductible: 0 }]);
  });
});
