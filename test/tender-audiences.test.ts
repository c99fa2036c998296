import { beforeAll, describe, expect, it } from 'vitest';
import { Role, scopeOf, type Viewer } from '../src/access';
import type { Insurer } from '../src/insurers';
import { TenderStatus, audiencesOfTender, visibilityOf, type Tender, type TenderFacts, type TenderVisibility } from '../src/tenders';
import { currentRevisionOf } from '../src/tenders/feed/tender-feed';
import { WebhookDelivery, WebhookDeliveryStatus } from '../src/webhooks';
import { createTender, receivedQuote } from './helpers/fixtures';
import { createClient, graphql, requestToken, type Credentials } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { waitFor } from './helpers/simulator';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

/**
 * Who sees a tender is declared once (src/tenders/tender-audience.ts). This drives its three uses over a matrix of
 * viewers × statuses × award and checks each against the declaration's in-memory form (`visibilityOf`):
 * - the read APIs: GraphQL and REST reads of the tender (404 or not, redacted or not), and the GraphQL list and count;
 * - the feed: whether the viewer's list ETag (REST) or feed revision (analysts, who have no REST API) moves when the tender changes;
 * - the webhook audience: whether a registered endpoint of the viewer's client receives the change's `tender.status_changed`,
 *   by real deliveries, and the audiences the listener computes in the same SQL (`audiencesOfTender`).
 */

interface MatrixViewer {
  name: string;
  role: Role;
  binding: { insurerId?: string; brokerCompanyId?: string };
  token: string;
  /** The viewer as the gateway decodes its token (for the feed revision of analysts, and `audiencesOfTender`). */
  viewer: Viewer;
  /** Its list route, whose ETag is its feed revision; analysts have no REST API. */
  list?: string;
  /** Its item route (REST); analysts have none. */
  item?: (id: string) => string;
  /** Internal and analyst clients own no webhook endpoints. */
  webhookPath?: string;
}

/** A tender set up in one state and moved by one real change into another. */
interface Cell {
  name: string;
  before: { status: TenderStatus; award: 'A' | 'B' | null };
  change: (tender: Tender) => Promise<void>;
  after: { status: TenderStatus; award: 'A' | 'B' | null };
  tender?: Tender;
}

let receiver: WebhookReceiver;
let internalToken: string;
const viewers: MatrixViewer[] = [];
let A: Insurer;
let B: Insurer;

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const { body } = await graphql(scene.gateway, internalToken, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

const change = {
  startNegotiation: (tender: Tender) => gql('mutation($t: ID!) { startNegotiation(tenderId: $t) { status } }', { t: tender.id }),
  close: (tender: Tender) =>
    gql('mutation($t: ID!) { closeTender(tenderId: $t, reason: "no longer needed") { status } }', { t: tender.id }),
  reopen: (tender: Tender) => gql('mutation($t: ID!) { reopenTender(tenderId: $t) { status } }', { t: tender.id }),
  finalise: (tender: Tender) => gql('mutation($t: ID!) { finaliseContract(tenderId: $t) { status } }', { t: tender.id }),
  orderCoverFrom: (insurer: () => Insurer) => async (tender: Tender) => {
    const data = await gql('query($t: ID!) { quoteRequests(tenderId: $t) { insurer { id } options { id } } }', { t: tender.id });
    const option = data.quoteRequests.find((request: { insurer: { id: string } }) => request.insurer.id === insurer().id).options[0].id;
    await gql('mutation($t: ID!, $o: ID!) { orderCover(tenderId: $t, quoteOptionId: $o) { status } }', { t: tender.id, o: option });
  },
};

const { QUOTES_AVAILABLE, IN_NEGOTIATION, IN_COVERNOTE, REOPENED, SUCCESSFUL, CLOSED } = TenderStatus;

/** Every status appears before or after a change; awards where the lifecycle gives one. QUOTES_AVAILABLE is only ever left. */
const cells: Cell[] = [
  {
    name: 'negotiation starts',
    before: { status: QUOTES_AVAILABLE, award: null },
    change: change.startNegotiation,
    after: { status: IN_NEGOTIATION, award: null },
  },
  {
    name: 'a reopened tender closes',
    before: { status: REOPENED, award: null },
    change: change.close,
    after: { status: CLOSED, award: null },
  },
  {
    name: 'cover ordered from A',
    before: { status: IN_NEGOTIATION, award: null },
    change: change.orderCoverFrom(() => A),
    after: { status: IN_COVERNOTE, award: 'A' },
  },
  {
    name: 'cover ordered from B',
    before: { status: IN_NEGOTIATION, award: null },
    change: change.orderCoverFrom(() => B),
    after: { status: IN_COVERNOTE, award: 'B' },
  },
  { name: 'A wins', before: { status: IN_COVERNOTE, award: 'A' }, change: change.finalise, after: { status: SUCCESSFUL, award: 'A' } },
  { name: 'B wins', before: { status: IN_COVERNOTE, award: 'B' }, change: change.finalise, after: { status: SUCCESSFUL, award: 'B' } },
  {
    name: "A's cover note closes",
    before: { status: IN_COVERNOTE, award: 'A' },
    change: change.close,
    after: { status: CLOSED, award: 'A' },
  },
  {
    name: 'a closed tender reopens',
    before: { status: CLOSED, award: null },
    change: change.reopen,
    after: { status: REOPENED, award: null },
  },
];

const insurerOf = (award: 'A' | 'B' | null) => (award === 'A' ? A : award === 'B' ? B : undefined);

/** The facts of a matrix tender: broker company 0's, insurers A and B invited (C not). */
const factsOf = (state: Cell['before']): TenderFacts => ({
  brokerCompanyId: scene.world.brokers[0].id,
  invitedInsurerIds: [A.id, B.id],
  status: state.status,
  awardedInsurerId: insurerOf(state.award)?.id ?? null,
});

async function restGet(path: string, token: string) {
  const response = await fetch(`${scene.gateway.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { status: response.status, etag: response.headers.get('etag'), body: text ? JSON.parse(text) : undefined };
}

/** What the viewer's feed stands at: its list's ETag, or (analysts, who have no REST API) its revision. */
async function feedOf(viewer: MatrixViewer): Promise<string> {
  if (!viewer.list) return currentRevisionOf(scene.gateway.em(), viewer.viewer);
  const answer = await restGet(viewer.list, viewer.token);
  expect(answer.status).toBe(200);
  return answer.etag!;
}

/** What the read APIs show the viewer of a tender, checked to agree between GraphQL and REST. */
async function readOf(viewer: MatrixViewer, tenderId: string): Promise<TenderVisibility> {
  const { body } = await graphql(scene.gateway, viewer.token, 'query($id: ID!) { tender(id: $id) { id redacted customer { id } } }', {
    id: tenderId,
  });
  const viaGraphql: TenderVisibility = body.errors
    ? (expect(body.errors[0].extensions.code).toBe('NOT_FOUND'), 'hidden')
    : body.data.tender.redacted
      ? (expect(body.data.tender.customer).toBeNull(), 'redacted')
      : 'full';
  if (viewer.item) {
    const rest = await restGet(viewer.item(tenderId), viewer.token);
    const viaRest: TenderVisibility = rest.status === 404 ? 'hidden' : rest.body.customer === null ? 'redacted' : 'full';
    expect([200, 404]).toContain(rest.status);
    expect(viaRest, `REST read of ${viewer.name}`).toBe(viaGraphql);
  }
  return viaGraphql;
}

const visible = (visibility: TenderVisibility) => visibility !== 'hidden';

const scene = withGateway({ per: 'file', webhooks: 'retrying', world: true });

beforeAll(async () => {
  [A, B] = scene.world.insurers;
  receiver = scene.closes(await startWebhookReceiver());
  const specs: Omit<MatrixViewer, 'token' | 'viewer'>[] = [
    { name: 'internal', role: Role.INTERNAL, binding: {}, list: '/api/v1/tenders', item: (id) => `/api/v1/tenders/${id}` },
    { name: 'analyst', role: Role.ANALYST, binding: {} },
    ...[0, 1].map((i) => ({
      name: `broker of company ${i}`,
      role: Role.BROKER,
      binding: { brokerCompanyId: scene.world.brokers[i].id },
      list: '/api/v1/tenders',
      item: (id: string) => `/api/v1/tenders/${id}`,
      webhookPath: `/broker-${i}`,
    })),
    ...(['A', 'B', 'C'] as const).map((name, i) => ({
      name: `insurer ${name}`,
      role: Role.INSURER,
      binding: { insurerId: scene.world.insurers[i].id },
      list: '/public/v1/tenders',
      item: (id: string) => `/public/v1/tenders/${id}`,
      webhookPath: `/insurer-${name}`,
    })),
  ];
  for (const spec of specs) {
    const credentials: Credentials = await createClient(scene.gateway, spec.role, spec.binding);
    const token = await requestToken(scene.gateway, credentials);
    const viewer = {
      appId: credentials.appId,
      role: spec.role,
      ...spec.binding,
      jti: 'matrix',
      expiresAt: new Date(Date.now() + 3_600_000),
      tokenGeneration: 0,
    };
    viewers.push({ ...spec, token, viewer });
    const registered = await fetch(`${scene.gateway.url}/integration/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url(spec.webhookPath ?? '/nobody'), event_types: ['tender.status_changed'] }),
    });
    // Internal users and analysts own no endpoints: their audience (`all`) hears of changes only by reading.
    expect(registered.status, spec.name).toBe(spec.webhookPath ? 201 : 403);
  }
  internalToken = viewers[0].token;

  const em = scene.gateway.em();
  for (const cell of cells) {
    const { status, award } = cell.before;
    if (cell.after.status === IN_COVERNOTE) {
      // Cover is ordered on a quote: A and B each quoted (and so were invited).
      cell.tender = await createTender(em, scene.world, { status });
      await receivedQuote(em, cell.tender, A);
      await receivedQuote(em, cell.tender, B);
    } else {
      cell.tender = await createTender(em, scene.world, { status, invited: [A, B], awardedInsurer: insurerOf(award) });
    }
  }
}, 60_000);

describe('who sees a tender: the read APIs, the feed and the webhooks agree, over roles × statuses × award', () => {
  it('each viewer reads, is told by its feed, and hears by webhook of exactly the tenders the one audience rule shows it', async () => {
    const expectedDeliveries = new Map<string, string[]>();
    for (const cell of cells) {
      const tender = cell.tender!;
      const before = new Map<string, string>();
      for (const viewer of viewers) {
        expect(await readOf(viewer, tender.id), `${viewer.name} reads "${cell.name}" before`).toBe(
          visibilityOf(viewer.viewer, factsOf(cell.before)),
        );
        before.set(viewer.name, await feedOf(viewer));
      }

      await cell.change(tender);

      const audiences = await audiencesOfTender(scene.gateway.em(), { id: tender.id, brokerCompanyId: scene.world.brokers[0].id });
      for (const viewer of viewers) {
        const expected = visibilityOf(viewer.viewer, factsOf(cell.after));
        expect(await readOf(viewer, tender.id), `${viewer.name} reads "${cell.name}" after`).toBe(expected);
        const feedMoved = (await feedOf(viewer)) !== before.get(viewer.name);
        expect(feedMoved, `${viewer.name}'s feed on "${cell.name}"`).toBe(visible(expected));
        const scope = JSON.stringify(scopeOf(viewer.viewer));
        expect(
          audiences.some((audience) => JSON.stringify(audience) === scope),
          `${viewer.name} among the audiences of "${cell.name}"`,
        ).toBe(visible(expected));
        if (viewer.webhookPath && visible(expected)) {
          expectedDeliveries.set(viewer.webhookPath, [
            ...(expectedDeliveries.get(viewer.webhookPath) ?? []),
            `${tender.id}:${cell.after.status}`,
          ]);
        }
      }
    }

    // Real deliveries: every event recorded is delivered, and each endpoint got exactly those of the tenders its client sees.
    await waitFor(
      'every delivery',
      async () => (await scene.gateway.em().count(WebhookDelivery, { status: { $ne: WebhookDeliveryStatus.DELIVERED } })) === 0,
    );
    for (const viewer of viewers.filter((each) => each.webhookPath)) {
      const received = receiver.received(viewer.webhookPath).map(({ event }) => `${event.data.tender_id}:${event.data.status}`);
      expect(received.sort(), `deliveries to ${viewer.name}`).toEqual((expectedDeliveries.get(viewer.webhookPath!) ?? []).sort());
    }
    expect(receiver.received('/nobody')).toEqual([]);

    // The lists and their counts (an insurer's counted from its invitations, with and without a filter) agree as well.
    for (const viewer of viewers) {
      for (const status of [null, [CLOSED, SUCCESSFUL]]) {
        const { body } = await graphql(
          scene.gateway,
          viewer.token,
          'query($s: [TenderStatus!]) { tenders(status: $s, limit: 200) { count items { id redacted } } }',
          { s: status },
        );
        const shown = new Map<string, TenderVisibility>(
          body.data.tenders.items.map((item: { id: string; redacted: boolean }) => [item.id, item.redacted ? 'redacted' : 'full']),
        );
        const expected = cells
          .filter((cell) => !status || status.includes(cell.after.status))
          .map((cell) => [cell.tender!.id, visibilityOf(viewer.viewer, factsOf(cell.after))] as const)
          .filter(([, visibility]) => visible(visibility));
        expect(shown, `${viewer.name}'s list (status ${String(status)})`).toEqual(new Map(expected));
        expect(body.data.tenders.count).toBe(expected.length);
      }
    }
  }, 120_000);
});
