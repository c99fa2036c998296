import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { Role } from '../access';
import { audiencesOfTender, type TenderStatus } from '../tenders';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import type { WebhookEventType } from './webhook-event-type';

/**
 * Who may hear of an event: a broker company, insurers, or everyone who sees a tender (the tender's audience rule,
 * as the read APIs and the feed apply it; docs/webhooks.md).
 */
type Audience =
  | { brokerCompanyId: string; insurerIds?: readonly string[] }
  | { insurerIds: readonly string[] }
  | { seesTender: { id: string; brokerCompanyId: string } };

interface WebhookEvent {
  type: WebhookEventType;
  /** What makes the event itself: the same key, reported twice, is one event. */
  key: string;
  occurredAt: Date;
  /**
   * Thin: the tender's `_id`, its status, and what else names the event; a customer's erasure names the customer
   * and its tenders by id. The receiver reads the rest from the API.
   */
  data:
    | ({ tender_id: string; status: TenderStatus } & Record<string, string>)
    | { customer_id: string; tender_ids: readonly string[] }
    | { product: string; version: number; breaking: boolean };
  audience: Audience;
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 32);
const eventIdOf = (key: string) => `evt_${digest(key)}`;
const deliveryIdOf = (eventId: string, endpointId: string) => `msg_${digest(`${eventId}|${endpointId}`)}`;

/** The broker companies and insurers of an audience: the parties that own webhook endpoints. */
async function partiesOf(em: EntityManager, audience: Audience): Promise<{ brokerCompanyIds: string[]; insurerIds: string[] }> {
  if ('brokerCompanyId' in audience) return { brokerCompanyIds: [audience.brokerCompanyId], insurerIds: [...(audience.insurerIds ?? [])] };
  if ('insurerIds' in audience) return { brokerCompanyIds: [], insurerIds: [...audience.insurerIds] };
  const parties = { brokerCompanyIds: [] as string[], insurerIds: [] as string[] };
  // The `all` audience (internal users and analysts) owns no endpoints.
  for (const member of await audiencesOfTender(em, audience.seesTender)) {
    if (member.kind === 'brokerCompany') parties.brokerCompanyIds.push(member.brokerCompanyId);
    if (member.kind === 'insurer') parties.insurerIds.push(member.insurerId);
  }
  return parties;
}

async function endpointsOf(em: EntityManager, audience: Audience): Promise<WebhookEndpoint[]> {
  const { brokerCompanyIds, insurerIds } = await partiesOf(em, audience);
  const owners = [
    ...(brokerCompanyIds.length > 0 ? [{ role: Role.BROKER, brokerCompany: { $in: brokerCompanyIds } }] : []),
    ...(insurerIds.length > 0 ? [{ role: Role.INSURER, insurer: { $in: insurerIds } }] : []),
  ];
  if (owners.length === 0) return [];
  // A disabled endpoint still collects its events: they wait, and go out when it is enabled again.
  return em.find(WebhookEndpoint, { owner: { $or: owners, disabledAt: null } });
}

/**
 * Records the event for every endpoint of its audience (of an enabled client) that subscribed to its type, in the caller's
 * transaction: the event is enqueued with the change that caused it, or not at all, and once per endpoint (the
 * delivery id is derived from the event and the endpoint; a second report inserts nothing).
 */
export async function enqueueWebhookEvent(em: EntityManager, event: WebhookEvent): Promise<void> {
  const endpoints = (await endpointsOf(em, event.audience)).filter((endpoint) => endpoint.eventTypes.includes(event.type));
  if (endpoints.length === 0) return;
  const eventId = eventIdOf(event.key);
  const payload = JSON.stringify({ id: eventId, type: event.type, occurred_at: event.occurredAt.toISOString(), data: event.data });
  await em.upsertMany(
    WebhookDelivery,
    endpoints.map((endpoint) => ({
      id: deliveryIdOf(eventId, endpoint.id),
      endpoint: endpoint.id,
      eventId,
      eventType: event.type,
      payload,
      attempts: 0,
      nextAttemptAt: event.occurredAt,
      createdAt: event.occurredAt,
    })),
    { onConflictFields: ['id'], onConflictAction: 'ignore' },
  );
}
