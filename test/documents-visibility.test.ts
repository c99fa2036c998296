import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Tender, TenderStatus } from '../src/tenders';
import { QuoteOption } from '../src/quotes';
import { WebhookDelivery } from '../src/webhooks';
import { createTender, createWorld, receivedQuote, type World } from './helpers/fixtures';
import { getJson, graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { PDF, addDocument } from './helpers/documents';
import { startS3Server, type S3Server } from './helpers/s3-server';

/**
 * Who sees which document (issue 28, "Nothing leaks"): every kind × every role × every tender state, through the
 * REST list, the REST content, GraphQL's Tender.documents and its download links, and the DOCUMENT_ADDED event.
 * Insurer A and B both quoted; C was never invited; the second broker company owns none of it. On both stores (the
 * gateway's links, which redirect to a presigned link for a document in S3). Links that outlive a change of the
 * tender are test/documents-links.test.ts.
 */
type Viewer = 'broker' | 'otherBroker' | 'internal' | 'analyst' | 'insurerA' | 'insurerB' | 'insurerC';
type State = 'open' | 'closed' | 'wonByA' | 'wonByB';
type Kind = 'RISK' | 'OTHER' | 'QUOTE_A' | 'QUOTE_B' | 'POLICY';
const KINDS: Kind[] = ['RISK', 'OTHER', 'QUOTE_A', 'QUOTE_B', 'POLICY'];
const STATES: State[] = ['open', 'closed', 'wonByA', 'wonByB'];
const VIEWERS: Viewer[] = ['broker', 'otherBroker', 'internal', 'analyst', 'insurerA', 'insurerB', 'insurerC'];

/** The rule of the issue, written out: what each viewer sees; `null` is a 404 for the tender's documents as a whole. */
function expected(viewer: Viewer, state: State): Kind[] | null {
  switch (viewer) {
    case 'broker':
    case 'internal':
    case 'analyst':
      return KINDS;
    case 'otherBroker':
    case 'insurerC':
      return null;
    case 'insurerA':
    case 'insurerB': {
      const me = viewer === 'insurerA' ? 'A' : 'B';
      if (state === 'closed') return null;
      if (state === 'open') return ['RISK', 'OTHER', `QUOTE_${me}`];
      if (state === `wonBy${me}`) return [`QUOTE_${me}`, 'POLICY'];
      return null;
    }
  }
}

const apiOf = (viewer: Viewer) => (viewer.startsWith('insurer') ? '/public/v1' : '/api/v1');

describe.each(['filesystem', 's3'] as const)('the %s store', (store) => {
  let s3: S3Server | undefined;
  let gateway: Gateway;
  let world: World;
  const tokens = {} as Record<Viewer, string>;
  const tenders = {} as Record<State, { id: string; documents: Record<Kind, string> }>;

  beforeAll(async () => {
    s3 = store === 's3' ? await startS3Server() : undefined;
    gateway = await startGateway({ dispatch: false, env: { WEBHOOK_URL_ALLOW: '127.0.0.1', ...s3?.env } });
    world = await createWorld(gateway.em());
    const [a, b, c] = world.insurers;
    tokens.broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    tokens.otherBroker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[1].id });
    tokens.internal = await tokenFor(gateway, Role.INTERNAL);
    tokens.analyst = await tokenFor(gateway, Role.ANALYST);
    tokens.insurerA = await tokenFor(gateway, Role.INSURER, { insurerId: a.id });
    tokens.insurerB = await tokenFor(gateway, Role.INSURER, { insurerId: b.id });
    tokens.insurerC = await tokenFor(gateway, Role.INSURER, { insurerId: c.id });
    for (const viewer of ['broker', 'otherBroker', 'insurerA', 'insurerB', 'insurerC'] as const) {
      const response = await fetch(`${gateway.url}/integration/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[viewer]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:9/${viewer}`, event_types: ['document.added'] }),
      });
      expect(response.status, await response.text()).toBe(201);
    }

    for (const state of STATES) {
      const tender = await createTender(gateway.em(), world, {});
      const requestOf = async (insurer: (typeof world.insurers)[number]) => {
        const option = await receivedQuote(gateway.em(), tender, insurer);
        return (await gateway.em().findOneOrFail(QuoteOption, { id: option.id }, { populate: ['quoteRequest'] })).quoteRequest.id;
      };
      const [requestA, requestB] = [await requestOf(a), await requestOf(b)];
      // The documents are added while the tender is open (the POLICY one by an internal user), then the tender moves on.
      const documents: Record<Kind, string> = {
        RISK: await addDocument(gateway, tokens.broker, { tenderId: tender.id, kind: 'RISK' }),
        OTHER: await addDocument(gateway, tokens.broker, { tenderId: tender.id, kind: 'OTHER' }),
        QUOTE_A: await addDocument(gateway, tokens.insurerA, { tenderId: tender.id, kind: 'QUOTE', quoteRequestId: requestA }),
        QUOTE_B: await addDocument(gateway, tokens.insurerB, { tenderId: tender.id, kind: 'QUOTE', quoteRequestId: requestB }),
        POLICY: await addDocument(gateway, tokens.internal, { tenderId: tender.id, kind: 'POLICY' }, PDF),
      };
      const moves: Record<State, object> = {
        open: {},
        closed: { status: TenderStatus.CLOSED },
        wonByA: { status: TenderStatus.SUCCESSFUL, awardedInsurer: a.id },
        wonByB: { status: TenderStatus.SUCCESSFUL, awardedInsurer: b.id },
      };
      await gateway.em().nativeUpdate(Tender, { id: tender.id }, moves[state]);
      tenders[state] = { id: tender.id, documents };
    }
  });

  afterAll(async () => {
    await gateway?.close();
    await s3?.close();
  });

  const kindsOf = (state: State, ids: string[]) => KINDS.filter((kind) => ids.includes(tenders[state].documents[kind]));

  describe.each(STATES)('a tender that is %s', (state) => {
    it.each(VIEWERS.filter((viewer) => viewer !== 'analyst'))(
      '%s: the REST list and each content answer exactly what the rule allows',
      async (viewer) => {
        const { id, documents } = tenders[state];
        const allowed = expected(viewer, state);
        const list = await getJson(gateway, `${apiOf(viewer)}/tenders/${id}/documents`, tokens[viewer]);
        if (allowed === null) expect(list.status).toBe(404);
        else
          expect(
            kindsOf(
              state,
              list.body.payload.map((document: { _id: string }) => document._id),
            ),
          ).toEqual(allowed);
        for (const kind of KINDS) {
          const content = await fetch(`${gateway.url}${apiOf(viewer)}/tenders/${id}/documents/${documents[kind]}/content`, {
            headers: { authorization: `Bearer ${tokens[viewer]}` },
          });
          await content.arrayBuffer();
          expect([kind, content.status]).toEqual([kind, allowed?.includes(kind) ? 200 : 404]);
        }
      },
    );

    it.each(VIEWERS)('%s: GraphQL Tender.documents shows the same, and each download link opens its document', async (viewer) => {
      const allowed = expected(viewer, state);
      const { body } = await graphql(
        gateway,
        tokens[viewer],
        `
          query ($id: ID!) {
            tender(id: $id) {
              documents {
                id
                downloadUrl
              }
            }
          }
        `,
        {
          id: tenders[state].id,
        },
      );
      if (allowed === null) {
        // Not visible at all (NOT_FOUND), or redacted: the documents are withheld.
        expect(body.data?.tender?.documents ?? null).toBeNull();
        return;
      }
      const shown = body.data.tender.documents as { id: string; downloadUrl: string }[];
      expect(
        kindsOf(
          state,
          shown.map((document) => document.id),
        ),
      ).toEqual(allowed);
      for (const document of shown) expect((await fetch(document.downloadUrl)).status).toBe(200);
    });
  });

  describe('DOCUMENT_ADDED', () => {
    it('goes to the broker company and to the insurers that saw the document when it was added', async () => {
      const deliveries = await gateway
        .em()
        .find(WebhookDelivery, { eventType: 'document.added' as WebhookDelivery['eventType'] }, { populate: ['endpoint'] });
      const receivers = (documentId: string) =>
        deliveries
          .filter((delivery) => (JSON.parse(delivery.payload) as { data: { document_id: string } }).data.document_id === documentId)
          .map((delivery) => delivery.endpoint.url.split('/').pop())
          .sort();
      const { documents } = tenders.open;
      expect(receivers(documents.RISK)).toEqual(['broker', 'insurerA', 'insurerB']);
      expect(receivers(documents.QUOTE_A)).toEqual(['broker', 'insurerA']);
      expect(receivers(documents.QUOTE_B)).toEqual(['broker', 'insurerB']);
      // Added while no insurer had won: no insurer sees a POLICY document yet.
      expect(receivers(documents.POLICY)).toEqual(['broker']);
    });
  });
});
