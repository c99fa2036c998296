import { afterAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Tender } from '../src/tenders';
import { createWorld } from './helpers/fixtures';
import { graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { LARGE_MARKER, largeCustomer } from './helpers/large-customer';
import { whereMarkersAre } from './helpers/privacy';

const ERASE = `mutation ($customerId: ID!) { eraseCustomer(customerId: $customerId, reason: "Ticket PRIV-9") { tenders alreadyErased } }`;

/** Whether a tender as a reader saw it is erased; a tender half erased fails the test at once. */
function erasedState(tender: { erased_at?: string | null; erasedAt?: string | null; customer: { name: string } }): boolean {
  const erasedAt = tender.erased_at ?? tender.erasedAt ?? null;
  const blank = tender.customer.name === '';
  expect(erasedAt !== null, `erased_at ${erasedAt} beside the name "${tender.customer.name}"`).toBe(blank);
  return blank;
}

describe('erasure beside other traffic', () => {
  let gateway: Gateway | undefined;
  /** Ends the traffic loops and waits for them; set while they run. */
  let stopTraffic: (() => Promise<void>) | undefined;
  afterAll(async () => {
    // Whatever ended the test (a failure, its timeout), its loops end before the gateway does: closing it under a
    // request in flight fails that fetch with ECONNRESET or "other side closed", reported instead of the real failure.
    await stopTraffic?.();
    await gateway?.close();
  });

  it('reads and quote requests during an erasure never fail with a 5xx, and no reader sees the customer half erased', async () => {
    gateway = await startGateway();
    const world = await createWorld(gateway.em());
    const { customer, tenderIds } = await largeCustomer(gateway.em(), world, 400);
    const internal = await tokenFor(gateway, Role.INTERNAL);
    const broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    const g = gateway;

    let done = false;
    const statuses: number[] = [];
    /** Per page read: whether its tenders of the customer were all erased (true), all held (false). */
    const pages: boolean[] = [];
    const conflicts: string[] = [];
    const readRest = async () => {
      while (!done) {
        const response = await fetch(`${g.url}/api/v1/tenders?limit=200`, { headers: { authorization: `Bearer ${broker}` } });
        statuses.push(response.status);
        if (response.status !== 200) {
          await response.text();
          continue;
        }
        const states = new Set(((await response.json()) as { payload: any[] }).payload.map(erasedState));
        expect(states.size, 'one page showed the customer both erased and held').toBe(1);
        pages.push([...states][0]);
      }
    };
    const readGraphql = async () => {
      while (!done) {
        const { status, body } = await graphql(
          g,
          broker,
          `
            {
              tenders(limit: 200) {
                items {
                  erasedAt
                  customer {
                    name
                  }
                }
              }
            }
          `,
        );
        statuses.push(status);
        expect(body.errors).toBeUndefined();
        const states = new Set((body.data.tenders.items as any[]).map(erasedState));
        expect(states.size, 'one page showed the customer both erased and held').toBe(1);
        pages.push([...states][0]);
      }
    };
    const requestQuotes = async () => {
      for (let i = 0; !done; i += 1) {
        const { status, body } = await graphql(
          g,
          broker,
          `
            mutation ($input: RequestQuotesInput!) {
              requestQuotes(input: $input) {
                id
              }
            }
          `,
          {
            input: {
              tenderId: tenderIds[i % tenderIds.length],
              insurerIds: [world.insurers[i % 3].id],
              limits: [{ insuranceSum: 1_000_000 + i, deductible: 0 }],
              riskInformation: { turnover: { amount: 5_000_000, currency: 'EUR' } },
            },
          },
        );
        statuses.push(status);
        // Once the customer is erased its tenders take no quote requests: a conflict, never a failure.
        if (body.errors) conflicts.push(body.errors[0].extensions.code);
        else expect(body.data.requestQuotes).toHaveLength(1);
      }
    };
    // A loop that fails stops them all; its failure is the test's, once every loop has ended.
    const failures: unknown[] = [];
    const traffic = [readRest, readRest, readGraphql, requestQuotes, requestQuotes].map((loop) =>
      loop().catch((error: unknown) => {
        failures.push(error);
        done = true;
      }),
    );
    stopTraffic = async () => {
      done = true;
      await Promise.all(traffic);
    };
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { body } = await graphql(gateway, internal, ERASE, { customerId: customer.id });
      expect(body.data.eraseCustomer).toEqual({ tenders: 400, alreadyErased: false });
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await stopTraffic();
    }
    if (failures.length > 0) throw failures[0];

    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    // The readers saw it held, then erased: never back.
    expect(pages.includes(false) && pages.includes(true)).toBe(true);
    expect(await gateway.em().count(Tender, { customer: customer.id, erasedAt: null })).toBe(0);
    expect(new Set(conflicts)).toEqual(new Set(conflicts.length > 0 ? ['CONFLICT'] : []));
    // No quote request made beside the erasure kept the customer's details.
    expect(await whereMarkersAre(gateway.em(), [LARGE_MARKER])).toEqual([]);
  }, 90_000); // 400 tenders erased beside five loops of traffic: over 20 s on a loaded machine
});
