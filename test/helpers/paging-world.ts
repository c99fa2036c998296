import { Role } from '../../src/access';
import { TenderStatus } from '../../src/tenders';
import { createTender, createWorld, type World } from './fixtures';
import { startGateway, tokenFor, type Gateway } from './gateway';

export const PAGING_STATUSES = [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.CLOSED, TenderStatus.REOPENED];

interface PagingWorld {
  gateway: Gateway;
  world: World;
  broker: string;
  insurer: string;
  internal: string;
}

/**
 * A gateway with lists worth paging: `ofBroker` tenders of broker 0 in four statuses and products, four of them
 * created in the same millisecond (ties broken by id), insurer 0 invited to every other one; three of broker 1
 * that broker 0 must never page into. Tokens of broker 0, insurer 0 and an internal user.
 */
export async function pagingWorld(ofBroker: number): Promise<PagingWorld> {
  const gateway = await startGateway();
  const em = gateway.em();
  const world = await createWorld(em);
  const sameInstant = new Date('2026-03-01T12:00:00.000Z');
  for (let i = 0; i < ofBroker; i++) {
    await createTender(em, world, {
      status: PAGING_STATUSES[i % PAGING_STATUSES.length],
      product: `Product ${'CABD'[i % 4]}`,
      invited: i % 2 === 0 ? [world.insurers[0]] : [],
      createdAt: i >= 3 && i < 7 ? sameInstant : undefined,
    });
  }
  for (let i = 0; i < 3; i++) await createTender(em, world, { broker: 1, invited: [world.insurers[0]] });
  return {
    gateway,
    world,
    broker: await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id }),
    insurer: await tokenFor(gateway, Role.INSURER, { insurerId: world.insurers[0].id }),
    internal: await tokenFor(gateway, Role.INTERNAL),
  };
}
