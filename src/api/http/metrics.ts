import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import type { IRoute, Request } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { type DispatcherObserver, QuoteRequestStatus, QuoteRequest } from '../../quotes';
import { type WebhookObserver, WebhookDelivery, WebhookDeliveryStatus } from '../../webhooks';
import type { KeptResponsesObserver } from './kept-responses';

/** Prometheus metrics of one app instance (its own registry, so several apps can share a process). */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly retries = new Counter({
    name: 'quote_dispatcher_retries_total',
    help: 'Calls to insurer systems that failed and were scheduled again',
    registers: [this.registry],
  });
  private readonly failures = new Counter({
    name: 'quote_dispatcher_failures_total',
    help: 'Quote requests that ended FAILED',
    registers: [this.registry],
  });

  private readonly webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (scheduled again), failed (the delivery ended FAILED)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly webhookLatency = new Histogram({
    name: 'webhook_delivery_attempt_duration_seconds',
    help: 'Webhook delivery attempts: the call to the endpoint, by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly keptLookups = new Counter({
    name: 'rest_kept_responses_total',
    help: 'REST tender reads looked up among the kept answers (KEPT_RESPONSES_BYTES), by outcome: hit (answered from kept bytes) or miss',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly keptOutcomes = { hit: this.keptLookups.labels({ outcome: 'hit' }), miss: this.keptLookups.labels({ outcome: 'miss' }) };

  constructor(orm: MikroORM) {
    collectDefaultMetrics({ register: this.registry });
    stateGauge(
      this.registry,
      orm,
      { name: 'quote_requests', help: 'Quote requests by state' },
      QuoteRequest.name,
      Object.values(QuoteRequestStatus),
    );
    stateGauge(
      this.registry,
      orm,
      { name: 'webhook_deliveries', help: 'Webhook deliveries by state (finished ones are kept for WEBHOOK_RETENTION)' },
      WebhookDelivery.name,
      Object.values(WebhookDeliveryStatus),
    );
    new Gauge({
      name: 'webhook_oldest_pending_delivery_age_seconds',
      help: 'Age of the oldest PENDING webhook delivery (0 when none is pending)',
      registers: [this.registry],
      async collect() {
        const oldest = await orm.em
          .fork()
          .findOne(WebhookDelivery, { status: WebhookDeliveryStatus.PENDING }, { orderBy: { createdAt: 'asc' }, fields: ['createdAt'] });
        this.set(oldest ? Math.max(0, (Date.now() - oldest.createdAt.getTime()) / 1000) : 0);
      },
    });
  }

  /** Document uploads receiving bytes now in this process (at most DOCUMENT_UPLOAD_CONCURRENCY), read when scraped. */
  countUploads(inFlight: () => number): void {
    new Gauge({
      name: 'document_uploads_in_flight',
      help: 'Document uploads receiving bytes in this process (at most DOCUMENT_UPLOAD_CONCURRENCY)',
      registers: [this.registry],
      collect() {
        this.set(inFlight());
      },
    });
  }

  /** The bytes the kept REST answers take now (at most KEPT_RESPONSES_BYTES), read when scraped. */
  countKeptBytes(size: () => number): void {
    new Gauge({
      name: 'rest_kept_responses_bytes',
      help: 'Bytes the kept REST tender answers take in this process, as KEPT_RESPONSES_BYTES bounds them',
      registers: [this.registry],
      collect() {
        this.set(size());
      },
    });
  }

  readonly dispatcher: DispatcherObserver = {
    retryScheduled: () => this.retries.inc(),
    failed: () => this.failures.inc(),
  };

  readonly keptResponses: KeptResponsesObserver = {
    looked: (outcome) => this.keptOutcomes[outcome].inc(),
  };

  readonly webhooks: WebhookObserver = {
    attempted: (outcome, seconds) => {
      this.webhookAttempts.inc({ outcome });
      this.webhookLatency.observe({ outcome }, seconds);
    },
  };

  /** Each label set's counter and histogram children: prom-client hashes the labels on every call otherwise. */
  private readonly requestSeries = new Map<string, { counter: { inc(): void }; histogram: { observe(seconds: number): void } }>();

  /**
   * An answered request, labelled by its route pattern (`/api/v1/tenders/:id`), never by raw path, to bound
   * cardinality (methods are the parser's known ones, statuses three digits). Called by the request log.
   */
  readonly recordRequest = (req: Request, statusCode: number, seconds: number): void => {
    // express types the matched route as `any`: it is the route's IRoute once one matched.
    const matched = req.route as IRoute | undefined;
    const route = matched ? `${req.baseUrl}${matched.path}` : req.baseUrl || 'unmatched';
    const key = `${req.method} ${statusCode} ${route}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      const labels = { method: req.method, route, status: String(statusCode) };
      series = { counter: this.requests.labels(labels), histogram: this.latency.labels(labels) };
      this.requestSeries.set(key, series);
    }
    series.counter.inc();
    series.histogram.observe(seconds);
  };
}

/** A gauge of an outbox table's rows by state, every known state present (0 when none), counted when scraped. */
function stateGauge(
  registry: Registry,
  orm: MikroORM,
  { name, help }: { name: string; help: string },
  entityName: string,
  states: readonly string[],
): void {
  new Gauge({
    name,
    help,
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      for (const [state, count] of await countByStatus(orm, entityName, states)) this.set({ state }, count);
    },
  });
}

/** Rows of an outbox table by status, every known status present (0 when none): one grouped count. */
async function countByStatus(orm: MikroORM, entityName: string, states: readonly string[]): Promise<Map<string, number>> {
  const em = orm.em.fork() as SqlEntityManager;
  const counts = new Map<string, number>(states.map((state) => [state, 0]));
  const table = em.getMetadata().get(entityName).tableName;
  const rows: { status: string; count: number | string }[] = await em
    .getKnex()(table)
    .select('status')
    .count({ count: '*' })
    .groupBy('status');
  for (const row of rows) counts.set(row.status, Number(row.count));
  return counts;
}
