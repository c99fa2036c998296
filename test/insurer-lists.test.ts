import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Tender, TenderInvitation, TenderStatus, statusChangeKey } from '../src/tenders';
import { getJson, tokenFor } from './helpers/gateway';
import { withGateway } from './helpers/scene';

// An insurer's lists take one of two plans by how many tenders it was invited to (src/tenders/read/tender-access.ts,
// `listedTenders`): a busy insurer's pages walk the tenders in order, a new insurer's read its few invitations. Either
// way its pages, by skip and by cursor, are the slices of the same list: its invited tenders, newest first.

const TENDERS = 1_200;
/** Each insurer's invited tenders, newest first (ids). */
const invitedTo = new Map<string, string[]>();

const scene = withGateway({ per: 'file', world: true });

beforeAll(async () => {
  const em = scene.gateway.em();
  const [busy, quiet] = scene.world.insurers;
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const tenders: Tender[] = [];
  for (let i = 0; i < TENDERS; i++) {
    // Tenders in pairs share their creation time: the id breaks the tie.
    const createdAt = new Date(start + (i - (i % 2)) * 60_000);
    const tender = em.create(Tender, {
      product: 'Cyber Protect',
      status: TenderStatus.QUOTES_AVAILABLE,
      taxRate: 0.19,
      lineOfBusiness: scene.world.lines.cyber,
      customer: scene.world.customer,
      brokerCompany: scene.world.brokers[0],
      personInCharge: scene.world.people[0],
      changesMetadata: { [statusChangeKey(TenderStatus.QUOTES_AVAILABLE)]: createdAt.toISOString() },
      createdAt,
      updatedAt: createdAt,
    });
    tenders.push(tender);
    // The busy insurer is invited to all but every seventh tender (past the plans' turning point), the quiet one to every hundredth.
    if (i % 7 !== 0) em.create(TenderInvitation, { tender, insurer: busy, createdAt });
    if (i % 100 === 0) em.create(TenderInvitation, { tender, insurer: quiet, createdAt });
  }
  await em.flush();
  const position = new Map(tenders.map((tender, i) => [tender, i]));
  const newestFirst = [...tenders].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
  invitedTo.set(
    busy.id,
    newestFirst.filter((tender) => position.get(tender)! % 7 !== 0).map((tender) => tender.id),
  );
  invitedTo.set(
    quiet.id,
    newestFirst.filter((tender) => position.get(tender)! % 100 === 0).map((tender) => tender.id),
  );
}, 120_000);

const idsOf = (body: { payload: { _id: string }[] }) => body.payload.map((tender) => tender._id);

describe("an insurer's list, whichever plan reads it", () => {
  for (const which of ['busy', 'quiet'] as const) {
    it(`the ${which} insurer pages by skip and by cursor through exactly its invited tenders, newest first, with their count`, async () => {
      const insurer = scene.world.insurers[which === 'busy' ? 0 : 1];
      const expected = invitedTo.get(insurer.id)!;
      expect(expected.length).toBeGreaterThan(which === 'busy' ? 1_000 : 5);
      const token = await tokenFor(scene.gateway, Role.INSURER, { insurerId: insurer.id });

      const bySkip: string[] = [];
      for (let skip = 0; skip < expected.length; skip += 200) {
        const { status, body } = await getJson(scene.gateway, `/public/v1/tenders?skip=${skip}&limit=200`, token);
        expect(status).toBe(200);
        expect(body.metadata.count).toBe(String(expected.length));
        bySkip.push(...idsOf(body));
      }
      expect(bySkip).toEqual(expected);

      const byCursor: string[] = [];
      let next: string | null = '';
      while (next !== null) {
        const { status, body }: { status: number; body: { metadata: { next: string | null }; payload: { _id: string }[] } } = await getJson(
          scene.gateway,
          `/public/v1/tenders?limit=150${next ? `&after=${encodeURIComponent(next)}` : ''}`,
          token,
        );
        expect(status).toBe(200);
        byCursor.push(...idsOf(body));
        next = body.metadata.next;
      }
      expect(byCursor).toEqual(expected);
    });
  }
});
