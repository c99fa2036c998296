import { Role } from '../../src/access';
import { TenderStatus } from '../../src/tenders';
import { createTender } from './fixtures';
import { withGateway, type Scene } from './scene';

export const PAGING_STATUSES = [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.CLOSED, TenderStatus.REOPENED];

/** Tokens of broker 0, insurer 0 and an internal user, filled when the scene has started. */
export interface PagingTokens {
  broker: string;
  insurer: string;
  internal: string;
}

/**
 * A gateway for the file with lists worth paging: `ofBroker` tenders of broker 0 in four statuses and products, four
 * of them created in the same millisecond (ties broken by id), insurer 0 invited to every other one; three of broker 1
 * that broker 0 must never page into.
 */
export function withPagingWorld(ofBroker: number): { scene: Scene; tokens: PagingTokens } {
  const tokens: PagingTokens = { broker: '', insurer: '', internal: '' };
  const scene = withGateway({
    per: 'file',
    world: true,
    setUp: async ({ world, em, token }: Scene) => {
      const sameInstant = new Date('2026-03-01T12:00:00.000Z');
      for (let i = 0; i < ofBroker; i++) {
        await createTender(em(), world, {
          status: PAGING_STATUSES[i % PAGING_STATUSES.length],
          product: `Product ${'CABD'[i % 4]}`,
          invited: i % 2 === 0 ? [world.insurers[0]] : [],
          createdAt: i >= 3 && i < 7 ? sameInstant : undefined,
        });
      }
      for (let i = 0; i < 3; i++) await createTender(em(), world, { broker: 1, invited: [world.insurers[0]] });
      tokens.broker = await token(Role.BROKER);
      tokens.insurer = await token(Role.INSURER);
      tokens.internal = await token(Role.INTERNAL);
    },
  });
  return { scene, tokens };
}
