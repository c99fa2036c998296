import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { assertMay, type Operation, Role, type Viewer } from '../access';
import { ApiClient } from '../auth';
import { leaseIsFreeFilter } from '../platform/db/outbox-worker';
import { DomainError, badInput, notFound } from '../platform/errors/domain-error';
import { LIMITS, PageRules, parseHttpUrl } from '../platform/validation/rules';
import { WebhookEndpointRules } from './webhook-rules';
import { problemsOf, refused } from '../platform/validation/validate';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import type { WebhookPolicy } from './webhook-context';
import { WebhookDeliveryStatus, WebhookEventType } from './webhook-event-type';
import { WebhookReplay } from './webhook-replay.entity';

const DAY_MS = 24 * 3600_000;

interface WebhookEndpointChange {
  url?: string | null;
  eventTypes?: WebhookEventType[] | null;
  description?: string | null;
  enabled?: boolean | null;
}

/** What each side may hear of: the read APIs' audiences (docs/webhooks.md). */
export const EVENTS_FOR: Partial<Record<Role, readonly WebhookEventType[]>> = {
  [Role.INSURER]: [
    WebhookEventType.TENDER_INVITED,
    WebhookEventType.TENDER_STATUS_CHANGED,
    WebhookEventType.COVER_ORDERED,
    WebhookEventType.COVER_ORDER_OVERDUE,
    WebhookEventType.SUBJECTIVITY_RESPONDED,
    WebhookEventType.SUBJECTIVITY_OVERDUE,
    WebhookEventType.QUOTE_EXPIRING,
    WebhookEventType.QUOTE_EXPIRED,
    WebhookEventType.DOCUMENT_ADDED,
    WebhookEventType.QUESTION_SET_PUBLISHED,
    WebhookEventType.MESSAGE_POSTED,
    WebhookEventType.POLICY_NON_RENEWAL_NOTIFIED,
  ],
  [Role.BROKER]: [
    WebhookEventType.TENDER_STATUS_CHANGED,
    WebhookEventType.QUOTE_RECEIVED,
    WebhookEventType.QUOTE_EXPIRING,
    WebhookEventType.QUOTE_EXPIRED,
    WebhookEventType.POLICY_DOCUMENTATION_CONFIRMED,
    WebhookEventType.COVER_ACCEPTED,
    WebhookEventType.COVER_DECLINED,
    WebhookEventType.COVER_ORDER_OVERDUE,
    WebhookEventType.SUBJECTIVITY_DECIDED,
    WebhookEventType.SUBJECTIVITY_OVERDUE,
    WebhookEventType.DOCUMENT_ADDED,
    WebhookEventType.CUSTOMER_ERASED,
    WebhookEventType.RISK_ASSESSMENT_SUBMITTED,
    WebhookEventType.MESSAGE_POSTED,
    WebhookEventType.RENEWAL_DUE,
    WebhookEventType.NOTICE_DEADLINE_APPROACHING,
    WebhookEventType.NOTICE_DEADLINE_PASSED,
  ],
};

/** A new signing secret: `whsec_` and 24 random bytes in base64 (Standard Webhooks). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * Webhook endpoints of API clients: an insurer or broker client manages its own, internal users any client's
 * (naming it by app_id). An endpoint of another client is NOT_FOUND, as a tender one may not see is.
 */
export class WebhookEndpointService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
    /** The URL policy for partners' endpoints; the dispatcher checks the resolved addresses again at every call. */
    private readonly policy: WebhookPolicy,
  ) {}

  /** Whose endpoints: the viewer's own client, or for internal users the client named. */
  private async ownerFor(appId: string | null | undefined): Promise<ApiClient> {
    if (this.viewer.role !== Role.INTERNAL) return this.em.findOneOrFail(ApiClient, { appId: this.viewer.appId });
    if (!appId)
      throw badInput('Name the API client whose endpoints these are', [{ parameter: 'appId', message: 'required for internal users' }]);
    const owner = await this.em.findOne(ApiClient, { appId });
    if (!owner) throw notFound(`API client ${appId} not found`);
    if (owner.role !== Role.INSURER && owner.role !== Role.BROKER) {
      throw badInput('Only insurer and broker clients receive tender events', [{ parameter: 'appId', message: `a ${owner.role} client` }]);
    }
    return owner;
  }

  async list(appId?: string | null): Promise<WebhookEndpoint[]> {
    assertMay(this.viewer, 'webhookEndpoints');
    const owner = await this.ownerFor(appId);
    return this.em.find(WebhookEndpoint, { owner }, { populate: ['owner'], orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  async get(id: string, operation: Operation = 'webhookEndpoint'): Promise<WebhookEndpoint> {
    assertMay(this.viewer, operation);
    const scope = this.viewer.role === Role.INTERNAL ? {} : { owner: { appId: this.viewer.appId } };
    const endpoint = await this.em.findOne(WebhookEndpoint, { id, ...scope }, { populate: ['owner'] });
    if (!endpoint) throw notFound(`Webhook endpoint ${id} not found`);
    return endpoint;
  }

  private check(change: WebhookEndpointChange, owner: ApiClient): void {
    const problems = problemsOf(WebhookEndpointRules, change);
    if (change.url && !refused(problems, 'url')) {
      const url = parseHttpUrl(change.url);
      if (!url) problems.push({ parameter: 'url', message: 'must be an absolute http(s) URL' });
      else if (this.policy.httpsOnly && url.protocol !== 'https:') problems.push({ parameter: 'url', message: 'must be an https URL' });
      else {
        const refusal = this.policy.urlAllowList.refusal(change.url);
        if (refusal) problems.push({ parameter: 'url', message: `not allowed: ${refusal}` });
      }
    }
    const allowed = EVENTS_FOR[owner.role] ?? [];
    const foreign = (change.eventTypes ?? []).filter((type) => !allowed.includes(type));
    if (foreign.length > 0 && !refused(problems, 'eventTypes')) {
      problems.push({
        parameter: 'eventTypes',
        message: `a ${owner.role} client does not receive ${foreign.join(', ')}; it may subscribe to ${allowed.join(', ')}`,
      });
    }
    if (problems.length > 0) throw badInput('The webhook endpoint is invalid', problems);
  }

  async create(input: {
    appId?: string | null;
    url: string;
    eventTypes: WebhookEventType[];
    description?: string | null;
  }): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    assertMay(this.viewer, 'createWebhookEndpoint');
    const owner = await this.ownerFor(input.appId);
    this.check(input, owner);
    const secret = newWebhookSecret();
    const endpoint = await this.em.transactional(async (tx) => {
      // One registration of a client at a time, so that each counts what the one before it committed: the write
      // takes the client's row lock on PostgreSQL, and SQLite's write lock (a transaction writes before it reads).
      await tx.nativeUpdate(ApiClient, { id: owner.id }, { appId: owner.appId });
      if ((await tx.count(WebhookEndpoint, { owner })) >= LIMITS.webhookEndpointsPerClient) {
        throw new DomainError('CONFLICT', `A client has at most ${LIMITS.webhookEndpointsPerClient} webhook endpoints`);
      }
      return tx.create(WebhookEndpoint, {
        owner,
        url: input.url,
        eventTypes: input.eventTypes,
        description: input.description ?? '',
        secret,
      });
    });
    return { endpoint, secret };
  }

  /** Enabling an endpoint a 410 disabled sends what waited meanwhile. */
  async update(id: string, change: WebhookEndpointChange): Promise<WebhookEndpoint> {
    const endpoint = await this.get(id, 'updateWebhookEndpoint');
    this.check(change, endpoint.owner);
    if (change.url) endpoint.url = change.url;
    if (change.eventTypes) endpoint.eventTypes = change.eventTypes;
    if (change.description !== undefined && change.description !== null) endpoint.description = change.description;
    if (change.enabled === true) Object.assign(endpoint, { disabledAt: null, disabledReason: null });
    if (change.enabled === false && !endpoint.disabledAt)
      Object.assign(endpoint, { disabledAt: new Date(), disabledReason: `disabled by ${this.viewer.appId}` });
    endpoint.updatedAt = new Date();
    await this.em.flush();
    return endpoint;
  }

  /**
   * A new secret signs every delivery from now on; the old one signs them too (a second signature) for
   * WEBHOOK_SECRET_GRACE, so the receiver can switch over without refusing a delivery.
   */
  async rotateSecret(id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const endpoint = await this.get(id, 'rotateWebhookEndpointSecret');
    const secret = newWebhookSecret();
    const now = new Date();
    Object.assign(endpoint, {
      previousSecret: endpoint.secret,
      previousSecretUntil: new Date(now.getTime() + this.policy.secretGraceMs),
      secret,
      updatedAt: now,
    });
    await this.em.flush();
    return { endpoint, secret };
  }

  /** With its delivery log. */
  async remove(id: string): Promise<void> {
    const endpoint = await this.get(id, 'deleteWebhookEndpoint');
    await this.em.transactional(async (tx) => {
      await tx.nativeDelete(WebhookDelivery, { endpoint: endpoint.id });
      await tx.nativeDelete(WebhookEndpoint, { id: endpoint.id });
    });
  }

  /** The delivery log, newest first. */
  async deliveries(id: string, { status, skip, limit }: { status?: WebhookDeliveryStatus | null; skip: number; limit: number }) {
    const endpoint = await this.get(id, 'webhookDeliveries');
    const problems = problemsOf(PageRules, { skip, limit });
    if (problems.length > 0) throw badInput('The page is invalid', problems);
    const where = { endpoint: endpoint.id, ...(status ? { status } : {}) };
    const [items, count] = await this.em.findAndCount(WebhookDelivery, where, {
      orderBy: { createdAt: 'desc', id: 'desc' },
      offset: skip,
      limit,
    });
    return { items, count, skip, limit };
  }

  /**
   * Sends the events since `since` again (at most the newest LIMITS.webhookReplay, and no more than is left of the
   * client's daily volume), whatever became of them: each keeps its `webhook-id` and event id, so a receiver that
   * has one already can tell. Not a delivery that awaits its first attempt (it goes out anyway, in its place), nor
   * one a dispatcher is delivering (its attempt stands). Replayed deliveries wait behind the client's live ones.
   * One replay per endpoint at a time: while deliveries it put back await their first attempt, another is a
   * CONFLICT. Returns how many were put back.
   */
  async replay(id: string, since: Date): Promise<number> {
    const endpoint = await this.get(id, 'replayWebhookDeliveries');
    if (Number.isNaN(since.getTime()) || since.getTime() > Date.now())
      throw badInput('Nothing happened after now', [{ parameter: 'since', message: 'must not lie in the future' }]);
    const perDay = this.policy.replayPerDay;
    return this.em.transactional(async (tx) => {
      // One replay of a client at a time, so that each sees what the one before it put back and counted: the write
      // takes the client's row lock on PostgreSQL, and SQLite's write lock (as registration does).
      await tx.nativeUpdate(ApiClient, { id: endpoint.owner.id }, { appId: endpoint.owner.appId });
      const now = new Date();
      const running = await tx.count(WebhookDelivery, {
        endpoint: endpoint.id,
        status: WebhookDeliveryStatus.PENDING,
        attempts: 0,
        replayedAt: { $ne: null },
      });
      if (running > 0) {
        throw new DomainError(
          'CONFLICT',
          `A replay of this endpoint is still running: ${running} replayed deliveries await their first attempt; replay again when they have gone out`,
        );
      }
      const dayAgo = new Date(now.getTime() - DAY_MS);
      const today = await tx.find(
        WebhookReplay,
        { client: endpoint.owner.id, requestedAt: { $gt: dayAgo } },
        { orderBy: { requestedAt: 'asc' } },
      );
      const left = perDay - today.reduce((sum, replay) => sum + replay.requeued, 0);
      if (left <= 0) {
        const freed = new Date(today.find((replay) => replay.requeued > 0)!.requestedAt.getTime() + DAY_MS);
        throw new DomainError('RATE_LIMITED', `A client may replay ${perDay} deliveries a day; replay again after ${freed.toISOString()}`);
      }
      const chosen = await tx.find(
        WebhookDelivery,
        {
          endpoint: endpoint.id,
          createdAt: { $gte: since },
          ...leaseIsFreeFilter(tx.getPlatform(), now),
          $not: { status: WebhookDeliveryStatus.PENDING, attempts: 0 },
        },
        { fields: ['id'], orderBy: { createdAt: 'desc', id: 'desc' }, limit: Math.min(LIMITS.webhookReplay, left) },
      );
      if (chosen.length === 0) return 0;
      const requeued = await tx.nativeUpdate(
        WebhookDelivery,
        { id: { $in: chosen.map((delivery) => delivery.id) }, ...leaseIsFreeFilter(tx.getPlatform(), now) },
        {
          status: WebhookDeliveryStatus.PENDING,
          attempts: 0,
          nextAttemptAt: now,
          replayedAt: now,
          lastAttemptAt: null,
          lastStatusCode: null,
          lastError: null,
          deliveredAt: null,
          leaseOwner: null,
          leaseUntil: null,
        },
      );
      tx.create(WebhookReplay, { client: endpoint.owner.id, endpointId: endpoint.id, requeued, requestedAt: now });
      return requeued;
    });
  }
}
