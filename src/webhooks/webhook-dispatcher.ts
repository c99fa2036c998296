import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { WebhookDeliveryConfig } from '../platform/config';
import { dateOfColumn } from '../platform/db/column-values';
import { leaseIsFree, leaseIsFreeFilter, OutboxWorker, type Claimed, type Outbox } from '../platform/db/outbox-worker';
import { inLinkedSpan } from '../platform/telemetry/trace-context';
import { PartnerCallFailed, PartnerClient, parseRetryAfter, sanitise, type PartnerFault } from '../platform/http/partner-client';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookDeliveryStatus } from './webhook-event-type';
import { WebhookReplay } from './webhook-replay.entity';

/** Receivers' answers are not read: the status says everything. */
const MAX_ANSWER_BYTES = 64 * 1024;
const MAX_ERROR = 1000;
/** How often finished deliveries older than the retention (and replays older than their day) are removed. */
const SWEEP_EVERY_MS = 10 * 60_000;
const DAY_MS = 24 * 3600_000;

/**
 * Pending deliveries no worker holds (the lease parameter is now), of enabled endpoints of enabled clients,
 * neither of a busy endpoint nor of a busy client (their ids are the parameters).
 */
function waiting(busyEndpoints: readonly string[], busyClients: readonly string[]): string {
  const notIn = (column: string, ids: readonly string[]) =>
    ids.length > 0 ? ` and ${column} not in (${ids.map(() => '?').join(', ')})` : '';
  return `from webhook_delivery d
    join webhook_endpoint e on e.id = d.endpoint_id
    join api_client c on c.id = e.owner_id
    where d.status = '${WebhookDeliveryStatus.PENDING}' and ${leaseIsFree('d')}
      and e.disabled_at is null and c.disabled_at is null${notIn('d.endpoint_id', busyEndpoints)}${notIn('e.owner_id', busyClients)}`;
}

/** Live deliveries before replayed ones. */
const REPLAYED = 'case when d.replayed_at is null then 0 else 1 end';

/**
 * Due deliveries as the worker picks among them: each client's first before any client's second (round-robin
 * across clients), within a client its endpoints in turn, and within each its live deliveries before replayed
 * ones, oldest first. No more of one endpoint or client than could get a slot. Window functions: the same SQL on
 * SQLite and PostgreSQL.
 */
const dueSql = (busyEndpoints: readonly string[], busyClients: readonly string[]) => `
  select id, endpoint_id, client_id from (
    select id, endpoint_id, client_id, replayed, next_attempt_at,
      row_number() over (partition by client_id order by replayed, endpoint_place, next_attempt_at, id) as client_place
    from (
      select d.id, d.endpoint_id, e.owner_id as client_id, d.next_attempt_at, ${REPLAYED} as replayed,
        row_number() over (partition by d.endpoint_id order by ${REPLAYED}, d.next_attempt_at, d.id) as endpoint_place
      ${waiting(busyEndpoints, busyClients)} and d.next_attempt_at <= ?
    ) by_endpoint
    where endpoint_place <= ?
  ) by_client
  where client_place <= ?
  order by client_place, replayed, next_attempt_at, id
  limit ?`;

/**
 * What an endpoint's owner reads about a failed attempt: our own words. The network's details (addresses,
 * socket errors) go to the logs only, so the log is no probe of the gateway's network.
 */
const FAULTS: Record<PartnerFault, string> = {
  timedOut: 'the endpoint did not answer in time',
  unreachable: 'the endpoint could not be reached',
  tooLarge: 'the endpoint answer was too large',
  notAllowed: 'the endpoint address is not allowed',
};

/** What an attempt came to: delivered, to be made again, or the delivery's end as FAILED. */
type AttemptOutcome = 'delivered' | 'retry' | 'failed';

/** What the dispatcher reports of each attempt; the metrics count it. */
export interface WebhookObserver {
  attempted(outcome: AttemptOutcome, seconds: number): void;
}

type Outcome =
  | { delivered: true; statusCode: number }
  | { delivered: false; statusCode: number | null; error: string; final: boolean; gone?: boolean; retryAfterMs?: number };

/**
 * Delivers the webhook outbox (Standard Webhooks): each delivery signed with its endpoint's secret (and, for a
 * while after a rotation, with the previous one too) in `webhook-id`, `webhook-timestamp`, `webhook-signature`,
 * through the one partner client (deadline, URL allow-list at every call, no redirects). 2xx delivers; 410 Gone
 * FAILS the delivery and disables the endpoint; an address the URL policy refuses FAILS it at once; anything
 * else is retried on the configured schedule (Retry-After honoured when longer), and after its last step the
 * delivery is FAILED. Deliveries are leased like quote requests, so several instances and a restarted one
 * deliver each at least once. Endpoints that are disabled, or whose client is, are not delivered to; their
 * deliveries wait. Slots are shared per API client (WEBHOOK_CONCURRENCY_PER_CLIENT) and per endpoint within it,
 * round-robin across clients, so one client's slow endpoints cannot hold another client's events back.
 */
export class WebhookDispatcher implements Outbox<string> {
  readonly owner = randomUUID();
  private readonly worker: OutboxWorker<string>;
  private readonly client: PartnerClient;
  private sweptAt = 0;

  constructor(
    private readonly orm: MikroORM,
    private readonly config: WebhookDeliveryConfig,
    private readonly logger: Logger,
    private readonly observer?: WebhookObserver,
  ) {
    this.client = new PartnerClient({ timeoutMs: config.timeoutMs, maxResponseBytes: MAX_ANSWER_BYTES, urlAllowList: config.urlAllowList });
    this.worker = new OutboxWorker(
      'webhook dispatcher',
      this,
      {
        concurrency: config.concurrency,
        perGroup: config.concurrencyPerClient,
        perPartner: config.concurrencyPerEndpoint,
        pollIntervalMs: config.pollIntervalMs,
      },
      logger,
    );
  }

  start(): void {
    this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  wake = (): void => this.worker.wake();

  /** Partners are endpoints; their group is the API client that owns them, so slots are shared per client too. */
  async nextDue(busyEndpoints: readonly string[], busyClients: readonly string[]): Promise<Date | undefined> {
    const now = this.orm.em.getPlatform().processDateProperty(new Date());
    const [next] = await this.execute<{ next_attempt_at: unknown }[]>(
      `select d.next_attempt_at ${waiting(busyEndpoints, busyClients)} and d.next_attempt_at is not null order by d.next_attempt_at asc limit 1`,
      [now, ...busyEndpoints, ...busyClients],
    );
    return next ? dateOfColumn(next.next_attempt_at) : undefined;
  }

  async due(limit: number, busyEndpoints: readonly string[], busyClients: readonly string[]): Promise<Claimed[]> {
    const now = new Date();
    await this.sweep(this.orm.em.fork(), now);
    const at = this.orm.em.getPlatform().processDateProperty(now);
    const due = await this.execute<{ id: string; endpoint_id: string; client_id: string }[]>(dueSql(busyEndpoints, busyClients), [
      at,
      ...busyEndpoints,
      ...busyClients,
      at,
      this.config.concurrencyPerEndpoint,
      this.config.concurrencyPerClient,
      limit,
    ]);
    return due.map((row) => ({ id: row.id, partner: row.endpoint_id, group: row.client_id }));
  }

  private execute<T>(sql: string, params: unknown[]): Promise<T> {
    return this.orm.em.getConnection().execute(sql, params, 'all') as Promise<T>;
  }

  /** The delivery's id once leased: its attempt reads it with its endpoint. */
  async lease(id: string): Promise<string | undefined> {
    const now = new Date();
    const em = this.orm.em.fork();
    const taken = await em.nativeUpdate(
      WebhookDelivery,
      { id, status: WebhookDeliveryStatus.PENDING, ...leaseIsFreeFilter(em.getPlatform(), now) },
      { leaseOwner: this.owner, leaseUntil: new Date(now.getTime() + this.config.leaseMs) },
    );
    return taken === 1 ? id : undefined;
  }

  /** Finished deliveries (DELIVERED, FAILED) are kept WEBHOOK_RETENTION for the log and replay, then removed. */
  private async sweep(em: EntityManager, now: Date): Promise<void> {
    if (now.getTime() - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now.getTime();
    await em.nativeDelete(WebhookDelivery, {
      status: { $in: [WebhookDeliveryStatus.DELIVERED, WebhookDeliveryStatus.FAILED] },
      createdAt: { $lt: new Date(now.getTime() - this.config.retentionMs) },
    });
    await em.nativeDelete(WebhookReplay, { requestedAt: { $lt: new Date(now.getTime() - DAY_MS) } });
  }

  async process(id: string): Promise<void> {
    const em = this.orm.em.fork();
    const delivery = await em.findOne(WebhookDelivery, { id, leaseOwner: this.owner }, { populate: ['endpoint', 'endpoint.owner'] });
    if (!delivery) return;
    const { endpoint } = delivery;
    if (endpoint.disabledAt || endpoint.owner.disabledAt) return void (await this.record(em, delivery, {}));
    const startedAt = performance.now();
    const attributes = { 'webhook_delivery.id': id, 'webhook_endpoint.id': endpoint.id, 'webhook_delivery.attempt': delivery.attempts + 1 };
    const outcome = await inLinkedSpan('webhook delivery', null, attributes, () => this.attempt(delivery)).catch(
      (error: unknown): Outcome => {
        this.logger.error({ err: error, delivery: id }, 'webhook attempt failed unexpectedly');
        return { delivered: false, statusCode: null, error: 'internal error', final: false };
      },
    );
    const seconds = (performance.now() - startedAt) / 1000;
    try {
      this.observer?.attempted(await this.store(em, delivery, outcome), seconds);
    } catch (error) {
      // Counted at least: should this fail too, the lease runs out and the attempt is made again.
      this.logger.error({ err: error, delivery: id }, 'could not record a webhook attempt; recording the bare count');
      const bare: Outcome = outcome.delivered
        ? outcome
        : { ...outcome, gone: false, error: 'the attempt could not be recorded; see the logs' };
      await this.store(this.orm.em.fork(), delivery, bare).then(
        (recorded) => this.observer?.attempted(recorded, seconds),
        (again: unknown) => this.logger.error({ err: again, delivery: id }, 'could not record a webhook attempt'),
      );
    }
  }

  /** The signatures of this attempt: the secret's, and the previous secret's while its grace lasts. */
  private sign(delivery: WebhookDelivery, sentAt: Date): string {
    const { secret, previousSecret, previousSecretUntil } = delivery.endpoint;
    const secrets = previousSecret && previousSecretUntil && previousSecretUntil > sentAt ? [secret, previousSecret] : [secret];
    return secrets.map((key) => new Webhook(key).sign(delivery.id, sentAt, delivery.payload)).join(' ');
  }

  private async attempt(delivery: WebhookDelivery): Promise<Outcome> {
    const sentAt = new Date();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'tender-exchange-webhooks/1',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': this.sign(delivery, sentAt),
    };
    try {
      const answer = await this.client.send(delivery.endpoint.url, 'POST', headers, Buffer.from(delivery.payload), { statusOnly: true });
      if (answer.status >= 200 && answer.status < 300) return { delivered: true, statusCode: answer.status };
      if (answer.status === 410)
        return { delivered: false, statusCode: 410, error: 'the endpoint answered 410 Gone', final: true, gone: true };
      return {
        delivered: false,
        statusCode: answer.status,
        error: `the endpoint answered ${answer.status}`,
        final: false,
        retryAfterMs: parseRetryAfter(answer.headers['retry-after']),
      };
    } catch (error) {
      if (!(error instanceof PartnerCallFailed)) throw error;
      this.logger.warn(
        { delivery: delivery.id, endpoint: delivery.endpoint.id, fault: error.fault, detail: error.detail },
        'webhook endpoint call failed',
      );
      return { delivered: false, statusCode: null, error: FAULTS[error.fault], final: error.fault === 'notAllowed' };
    }
  }

  /** The wait before the next attempt: the schedule's step jittered by up to a tenth, or a longer Retry-After. */
  private nextAttemptAt(attempts: number, retryAfterMs?: number): Date | null {
    const step = this.config.retrySchedule[attempts - 1];
    if (step === undefined) return null;
    const jittered = Math.round(step * (0.9 + Math.random() * 0.2));
    return new Date(Date.now() + Math.max(jittered, retryAfterMs ?? 0));
  }

  private async store(em: EntityManager, delivery: WebhookDelivery, outcome: Outcome): Promise<AttemptOutcome> {
    const attempts = delivery.attempts + 1;
    const now = new Date();
    if (outcome.delivered) {
      await this.record(em, delivery, {
        status: WebhookDeliveryStatus.DELIVERED,
        attempts,
        lastAttemptAt: now,
        lastStatusCode: outcome.statusCode,
        lastError: null,
        deliveredAt: now,
        nextAttemptAt: null,
      });
      return 'delivered';
    }
    const next = outcome.final ? null : this.nextAttemptAt(attempts, outcome.retryAfterMs);
    const error = next || outcome.final ? outcome.error : `${outcome.error} (gave up after ${attempts} attempts)`;
    this.logger.warn(
      { delivery: delivery.id, endpoint: delivery.endpoint.id, attempts, statusCode: outcome.statusCode, error, next },
      'webhook attempt failed',
    );
    await em.transactional(async (tx) => {
      await this.record(tx, delivery, {
        status: next ? WebhookDeliveryStatus.PENDING : WebhookDeliveryStatus.FAILED,
        attempts,
        lastAttemptAt: now,
        lastStatusCode: outcome.statusCode,
        lastError: sanitise(error, MAX_ERROR),
        nextAttemptAt: next,
      });
      if (outcome.gone) {
        await tx.nativeUpdate(
          WebhookEndpoint,
          { id: delivery.endpoint.id },
          { disabledAt: now, disabledReason: 'the endpoint answered 410 Gone', updatedAt: now },
        );
      }
    });
    return next ? 'retry' : 'failed';
  }

  /** A conditional update only the lease holder can make; releases the lease. */
  private record(em: EntityManager, delivery: WebhookDelivery, changes: Partial<WebhookDelivery>): Promise<number> {
    return em.nativeUpdate(
      WebhookDelivery,
      { id: delivery.id, leaseOwner: this.owner },
      { ...changes, leaseOwner: null, leaseUntil: null },
    );
  }
}
