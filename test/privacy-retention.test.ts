import { beforeAll, describe, expect, it } from 'vitest';
import { Address, Customer } from '../src/parties';
import { CustomerErasure } from '../src/privacy';
import { Tender, TenderHistoryEntry, TenderStatus } from '../src/tenders';
import { Role } from '../src/access';
import { cutOff } from '../src/privacy/retention/retention-sweep';
import { createTender } from './helpers/fixtures';
import { withGateway } from './helpers/scene';
import { waitFor } from './helpers/simulator';
import { freePort, spawnGateway } from './helpers/gateway-process';

const YEAR = 365 * 24 * 3600 * 1000;

const scene = withGateway({ per: 'file', env: { RETENTION_PERSONAL_DATA: '1y', RETENTION_SWEEP_INTERVAL_MS: '100' }, world: true });

beforeAll(async () => {});

/** A customer of its own with tenders in these statuses, each entering its status `endedAgoMs` ago. */
async function customerWith(name: string, tenders: { status: TenderStatus; endedAgoMs: number }[]): Promise<Customer> {
  const em = scene.gateway.em();
  const customer = em.create(Customer, { name, companyId: `ID-${name}`, address: new Address({ street: `${name} street` }) });
  await em.flush();
  for (const { status, endedAgoMs } of tenders) {
    const at = new Date(Date.now() - endedAgoMs);
    const tender = await createTender(scene.gateway.em(), scene.world, { status, createdAt: new Date(at.getTime() - 1000), updatedAt: at });
    await em.nativeUpdate(Tender, { id: tender.id }, { customer: customer.id });
    em.create(TenderHistoryEntry, {
      tender: tender.id,
      at,
      actor: 'fixture',
      actorRole: Role.INTERNAL,
      fromStatus: null,
      toStatus: status,
    });
  }
  await em.flush();
  return customer;
}

const erasedAt = async (customer: Customer) => (await scene.gateway.em().findOneOrFail(Customer, { id: customer.id })).erasedAt ?? null;

describe('RETENTION_PERSONAL_DATA', () => {
  it('erases on its schedule the customers whose tenders all ended longer ago; a customer with an open or recently ended tender keeps its data', async () => {
    const ended = await customerWith('Ended', [
      { status: TenderStatus.CLOSED, endedAgoMs: 2 * YEAR },
      { status: TenderStatus.SUCCESSFUL, endedAgoMs: 1.5 * YEAR },
    ]);
    const open = await customerWith('Open', [{ status: TenderStatus.QUOTES_AVAILABLE, endedAgoMs: 2 * YEAR }]);
    const mixed = await customerWith('Mixed', [
      { status: TenderStatus.CLOSED, endedAgoMs: 2 * YEAR },
      { status: TenderStatus.IN_NEGOTIATION, endedAgoMs: 2 * YEAR },
    ]);
    const recent = await customerWith('Recent', [{ status: TenderStatus.CLOSED, endedAgoMs: 0.5 * YEAR }]);

    await waitFor('the retention sweep', async () => (await erasedAt(ended)) !== null);
    const record = await scene.gateway.em().findOneOrFail(CustomerErasure, { customerId: ended.id });
    expect(record).toMatchObject({ erasedBy: 'retention', trigger: 'RETENTION', reason: 'RETENTION_PERSONAL_DATA=1y', tenders: 2 });
    const kept = await scene.gateway.em().findOneOrFail(Customer, { id: ended.id });
    expect([kept.name, kept.companyId, kept.address.street]).toEqual(['', '', '']);
    const tenders = await scene.gateway.em().find(Tender, { customer: ended.id });
    expect(tenders.map((tender) => tender.erasedAt)).toEqual([record.erasedAt, record.erasedAt]);
    expect(tenders.map((tender) => tender.status).sort()).toEqual([TenderStatus.CLOSED, TenderStatus.SUCCESSFUL]);

    // Several rounds later, the others are still held.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const customer of [open, mixed, recent]) {
      expect(await erasedAt(customer), customer.name).toBeNull();
      expect((await scene.gateway.em().findOneOrFail(Customer, { id: customer.id })).name).toBe(customer.name);
    }
    await scene.gateway.app.tasks.stop();
  });

  it('two instances sweeping the same database erase each due customer once', async () => {
    const due: Customer[] = [];
    for (let i = 0; i < 20; i += 1) due.push(await customerWith(`Due${i}`, [{ status: TenderStatus.CLOSED, endedAgoMs: 3 * YEAR }]));
    const env = { RETENTION_PERSONAL_DATA: '1y', RETENTION_SWEEP_INTERVAL_MS: '50' };
    const instances = [
      await spawnGateway(scene.gateway.dataDir, await freePort(), env),
      await spawnGateway(scene.gateway.dataDir, await freePort(), env),
    ];
    try {
      await waitFor(
        'both instances sweeping',
        async () => (await scene.gateway.em().count(Customer, { id: { $in: due.map((c) => c.id) }, erasedAt: null })) === 0,
      );
      const records = await scene.gateway.em().find(CustomerErasure, { customerId: { $in: due.map((customer) => customer.id) } });
      expect(records).toHaveLength(due.length);
      expect(instances.every((instance) => instance.alive())).toBe(true);
    } finally {
      for (const instance of instances) await instance.kill();
    }
  });

  it('counts periods in calendar years, months and days', () => {
    const now = new Date('2026-03-31T12:00:00.000Z');
    expect(cutOff(now, { amount: 10, unit: 'y' }).toISOString()).toBe('2016-03-31T12:00:00.000Z');
    expect(cutOff(now, { amount: 18, unit: 'mo' }).toISOString()).toBe('2024-09-30T12:00:00.000Z');
    expect(cutOff(now, { amount: 1, unit: 'mo' }).toISOString()).toBe('2026-02-28T12:00:00.000Z');
    expect(cutOff(new Date('2028-02-29T00:00:00.000Z'), { amount: 1, unit: 'y' }).toISOString()).toBe('2027-02-28T00:00:00.000Z');
    expect(cutOff(now, { amount: 90, unit: 'd' }).toISOString()).toBe('2025-12-31T12:00:00.000Z');
  });
});
