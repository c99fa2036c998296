import type { EntityManager } from '@mikro-orm/core';
import { Role } from '../../src/access';
import { Address, Customer, Person } from '../../src/parties';
import { QuoteRequest, QuoteRequestStatus, QuoteSource } from '../../src/quotes';
import { newId } from '../../src/platform/db/ids';
import { tenderChanged } from '../../src/tenders/feed/tender-feed';
import { Tender, TenderHistoryEntry, TenderStatus, statusChangeKey } from '../../src/tenders';
import type { World } from './fixtures';

export const LARGE_MARKER = 'ZqxLargeCustomer';

/**
 * A customer with many tenders of the first broker company, each with a history entry and a quote request holding
 * the customer's details: an erasure of it takes long enough to be watched, and cut.
 */
export async function largeCustomer(
  em: EntityManager,
  world: World,
  tenders: number,
): Promise<{ customer: Customer; tenderIds: string[] }> {
  const customer = em.create(Customer, {
    name: `${LARGE_MARKER} AG`,
    companyId: `${LARGE_MARKER}-ID`,
    address: new Address({ street: `${LARGE_MARKER} street`, city: 'Köln', country: 'DE' }),
  });
  const person = em.create(Person, {
    accountId: `${LARGE_MARKER}-ACC`,
    email: `${LARGE_MARKER.toLowerCase()}@example.com`,
    firstName: LARGE_MARKER,
    lastName: 'Person',
    salutation: '',
    brokerCompany: world.brokers[0],
  });
  await em.flush();
  const tenderIds: string[] = [];
  const rows = [];
  const history = [];
  const requests = [];
  const start = Date.parse('2025-01-01T00:00:00.000Z');
  for (let i = 0; i < tenders; i += 1) {
    const at = new Date(start + i * 60_000);
    const id = newId();
    tenderIds.push(id);
    rows.push({
      id,
      product: 'Cyber Protect',
      status: TenderStatus.QUOTES_AVAILABLE,
      taxRate: 0.19,
      lineOfBusiness: world.lines.cyber.id,
      customer: customer.id,
      brokerCompany: world.brokers[0].id,
      personInCharge: person.id,
      riskInformation: { note: `${LARGE_MARKER} risk`, turnover: { amount: 1000 + i, currency: 'EUR' } },
      changesMetadata: { [statusChangeKey(TenderStatus.QUOTES_AVAILABLE)]: at.toISOString() },
      createdAt: at,
      updatedAt: at,
      version: 1,
    });
    history.push({
      id: newId(),
      tender: id,
      at,
      actor: 'fixture',
      actorRole: Role.INTERNAL,
      fromStatus: null,
      toStatus: TenderStatus.QUOTES_AVAILABLE,
      reason: `${LARGE_MARKER} history`,
    });
    const riskInformation = { customer_name: `${LARGE_MARKER} AG`, turnover: { amount: 1000 + i, currency: 'EUR' } };
    requests.push({
      id: newId(),
      tender: id,
      insurer: world.insurers[i % world.insurers.length].id,
      status: QuoteRequestStatus.DECLINED,
      limits: [{ insurance_sum: 1_000_000, deductible: 0 }],
      riskInformation,
      riskInformationBytes: JSON.stringify(riskInformation).length,
      attempts: 0,
      source: QuoteSource.API,
      requestedBy: 'fixture',
      createdAt: at,
      updatedAt: at,
    });
  }
  // In chunks: SQLite binds at most 32766 values in one statement.
  for (let i = 0; i < tenders; i += 500) {
    await em.insertMany(Tender, rows.slice(i, i + 500));
    await em.insertMany(TenderHistoryEntry, history.slice(i, i + 500));
    await em.insertMany(QuoteRequest, requests.slice(i, i + 500));
  }
  // As every write does: the lists' kept counts and ETags move.
  await tenderChanged(em, { id: tenderIds[0], brokerCompanyId: world.brokers[0].id });
  return { customer, tenderIds };
}
