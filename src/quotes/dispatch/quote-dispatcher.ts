import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException, type EntityManager, type MikroORM } from '@mikro-orm/core';
import type { QuoteDispatchConfig } from '../../platform/config';
import type { Logger } from 'pino';
import { dateOfColumn, jsonOfColumn } from '../../platform/db/column-values';
import { leaseIsFree, OutboxWorker, type Claimed, type Outbox } from '../../platform/db/outbox-worker';
import { TenderStatus } from '../../tenders';
import { sanitise } from '../../platform/http/partner-client';
import { InsurerClient, PartnerError, Reason, retryDelay } from './insurer-client';
import { parseAcknowledgement, parseListedDocuments, parseQuote } from './insurer-payloads';
import type { FetchedDocuments, ListedDocument, QuoteDocumentFetcher } from './quote-documents';
import { statusOfAnswer, storeOptions } from '../quote-answer-store';
import { claimEarlyCallback } from '../callback/quote-callback.service';
import type { QuoteEventListener, QuoteEventTender } from '../quote-events';
import { DISPATCHABLE, QUOTABLE, QuoteRequestStatus } from '../quote-request-status';
import { QuoteRequest, type Limit } from '../quote-request.entity';
import { inLinkedSpan } from '../../platform/telemetry/trace-context';

const DISPATCHABLE_SQL = DISPATCHABLE.map((status) => `'${status}'`).join(', ');
/** Rows of partners other than the busy ones (whose ids are the parameters). */
const notOf = (busy: readonly string[]) => (busy.length > 0 ? ` and insurer_id not in (${busy.map(() => '?').join(', ')})` : '');

/**
 * Takes the lease on a request still due and free, and returns what its step needs: its own columns, its
 * insurer's address and credential, its tender's status and broker. One statement on both engines (the
 * subqueries of RETURNING read the other tables; SQLite allows no joined table there).
 */
const LEASE = `update quote_request set lease_owner = ?, lease_until = ?
  where id = ? and status in (${DISPATCHABLE_SQL}) and ${leaseIsFree()}
  returning id, status, attempts, limits, risk_information, insurer_reference, tender_id, insurer_id, created_at, traceparent,
    (select t.status from tender t where t.id = quote_request.tender_id) as tender_status,
    (select t.broker_company_id from tender t where t.id = quote_request.tender_id) as broker_company_id,
    (select i.quote_api_url from insurer i where i.id = quote_request.insurer_id) as quote_api_url,
    (select i.outbound_credential from insurer i where i.id = quote_request.insurer_id) as outbound_credential`;

interface LeasedRow {
  id: string;
  status: QuoteRequestStatus;
  attempts: number | string;
  limits: unknown;
  risk_information: unknown;
  insurer_reference: string | null;
  tender_id: string;
  tender_status: TenderStatus;
  broker_company_id: string;
  insurer_id: string;
  created_at: unknown;
  traceparent: string | null;
  /** Null only for an insurer registered MANUAL, whose requests are never dispatched. */
  quote_api_url: string | null;
  outbound_credential: string | null;
}

/** What a step works on: read in one statement, not as entities (docs/benchmark.md: the dispatcher's CPU). */
interface LeasedRequest {
  id: string;
  status: QuoteRequestStatus;
  attempts: number;
  limits: Limit[];
  riskInformation: Record<string, unknown>;
  insurerReference: string | null;
  createdAt: Date;
  /** The queuing request's trace, which the step's span links to. */
  traceparent: string | null;
  tender: QuoteEventTender;
  insurer: { id: string; quoteApiUrl: string; outboundCredential?: string };
}

function leasedRequest(row: LeasedRow): LeasedRequest {
  return {
    id: row.id,
    status: row.status,
    attempts: Number(row.attempts),
    limits: jsonOfColumn<Limit[]>(row.limits),
    riskInformation: jsonOfColumn<Record<string, unknown>>(row.risk_information),
    insurerReference: row.insurer_reference,
    createdAt: dateOfColumn(row.created_at),
    traceparent: row.traceparent,
    tender: { id: row.tender_id, status: row.tender_status, brokerCompanyId: row.broker_company_id },
    insurer: { id: row.insurer_id, quoteApiUrl: row.quote_api_url ?? '', outboundCredential: row.outbound_credential ?? undefined },
  };
}

const STEP: Partial<Record<QuoteRequestStatus, string>> = {
  [QuoteRequestStatus.QUEUED]: 'sending the quotation request',
  [QuoteRequestStatus.AVAILABLE]: 'fetching the quote',
};

/** What the dispatcher reports; the metrics count it. */
export interface DispatcherObserver {
  retryScheduled(): void;
  failed(): void;
}

/**
 * Delivers the quote-request outbox: sends QUEUED requests (`POST /quotes`) and fetches the quotes of
 * AVAILABLE ones (`GET /quotes/{id}`). Work is claimed row by row with a lease, so several dispatchers (and a
 * restarted one) never work on one request at once, and whatever a crash interrupted is picked up again when
 * its lease runs out. Every state change is a conditional update on (status, lease owner).
 */
export class QuoteDispatcher implements Outbox<LeasedRequest> {
  readonly owner = randomUUID();
  private readonly worker: OutboxWorker<LeasedRequest>;
  private readonly client: InsurerClient;
  private readonly observer?: DispatcherObserver;

  constructor(
    private readonly orm: MikroORM,
    private readonly config: QuoteDispatchConfig,
    private readonly options: {
      logger: Logger;
      client?: InsurerClient;
      observer?: DispatcherObserver;
      listeners?: readonly QuoteEventListener[];
      /** Fetches the documents a quote lists (the documents feature, given by the composition). */
      documents?: QuoteDocumentFetcher;
    },
  ) {
    this.client = options.client ?? new InsurerClient(config);
    this.observer = options.observer;
    this.worker = new OutboxWorker(
      'quote dispatcher',
      this,
      { concurrency: config.concurrency, perPartner: config.concurrencyPerInsurer, pollIntervalMs: config.pollIntervalMs },
      options.logger,
    );
  }

  private get logger(): Logger {
    return this.options.logger;
  }

  start(): void {
    this.worker.start();
  }

  /** Finishes the work in hand, then stops; nothing is lost: unfinished rows stay in the outbox. */
  async stop(): Promise<void> {
    await this.worker.stop();
  }

  /** New work was recorded (for one insurer, when known): look now instead of at the next poll. */
  wake = (insurerId?: string): void => this.worker.wake(insurerId);

  async nextDue(busy: readonly string[]): Promise<Date | undefined> {
    const [next] = await this.execute<{ next_attempt_at: unknown }[]>(
      `select next_attempt_at from quote_request where status in (${DISPATCHABLE_SQL})${notOf(busy)} order by next_attempt_at asc limit 1`,
      [...busy],
      'all',
    );
    return next?.next_attempt_at === null || next?.next_attempt_at === undefined ? undefined : dateOfColumn(next.next_attempt_at);
  }

  async due(limit: number, busy: readonly string[]): Promise<Claimed[]> {
    const now = this.orm.em.getPlatform().processDateProperty(new Date());
    const due = await this.execute<{ id: string; insurer_id: string }[]>(
      `select id, insurer_id from quote_request where status in (${DISPATCHABLE_SQL}) and next_attempt_at <= ? and ${leaseIsFree()}${notOf(busy)} order by next_attempt_at asc limit ?`,
      [now, now, ...busy, limit],
      'all',
    );
    return due.map((row) => ({ id: row.id, partner: row.insurer_id }));
  }

  async lease(id: string): Promise<LeasedRequest | undefined> {
    const now = new Date();
    const platform = this.orm.em.getPlatform();
    const [row] = await this.execute<LeasedRow[]>(
      LEASE,
      [this.owner, platform.processDateProperty(new Date(now.getTime() + this.config.leaseMs)), id, platform.processDateProperty(now)],
      'all',
    );
    return row ? leasedRequest(row) : undefined;
  }

  /**
   * The outbox's own statements (due, next due, lease) are fixed SQL: they run for every step and every wake-up,
   * and through the ORM (criteria, partial entities) they were most of the dispatcher's CPU (docs/benchmark.md).
   */
  private execute<T>(sql: string, params: unknown[], method: 'all'): Promise<T> {
    return this.orm.em.getConnection().execute(sql, params, method) as Promise<T>;
  }

  /** Each step is a trace of its own, linked to the request that queued the quote request. */
  process(request: LeasedRequest): Promise<void> {
    const attributes = { 'quote_request.id': request.id, 'quote_request.status': request.status, 'insurer.id': request.insurer.id };
    return inLinkedSpan('quote_request dispatch', request.traceparent, attributes, () => this.step(request));
  }

  private async step(request: LeasedRequest): Promise<void> {
    const em = this.orm.em.fork();
    try {
      // A request recorded while its tender was being closed or ordered (or one from before an order cancelled open
      // requests): nothing is sent, and no quote stored, once quotes can no longer be ordered.
      if (!QUOTABLE.includes(request.tender.status)) await this.cancel(em, request);
      else if (!request.insurer.quoteApiUrl) throw new PartnerError(Reason.internal, 'the insurer has no quote API URL', false);
      else if (request.status === QuoteRequestStatus.QUEUED) await this.send(em, request);
      else if (request.status === QuoteRequestStatus.AVAILABLE) await this.fetchQuote(em, request);
    } catch (error) {
      const failure =
        error instanceof PartnerError
          ? error
          : new PartnerError(Reason.internal, sanitise(String((error as Error)?.message ?? error)), true);
      if (!(error instanceof PartnerError)) this.logger.error({ err: error, quoteRequest: request.id }, 'quote request step failed');
      await this.recordFailure(em, request, failure);
    }
  }

  /** A conditional update that only the lease holder of a request in `from` can make; releases the lease. */
  private finish(em: EntityManager, request: LeasedRequest, from: QuoteRequestStatus, changes: Partial<QuoteRequest>): Promise<number> {
    return em.nativeUpdate(
      QuoteRequest,
      { id: request.id, status: from, leaseOwner: this.owner },
      { ...changes, leaseOwner: null, leaseUntil: null, updatedAt: new Date() },
    );
  }

  private async cancel(em: EntityManager, request: LeasedRequest): Promise<void> {
    const closed = request.tender.status === TenderStatus.CLOSED;
    await this.finish(em, request, request.status, {
      status: QuoteRequestStatus.CANCELLED,
      failureReason: closed ? Reason.tenderClosed : Reason.coverOrdered,
      failureDetail: `the tender was ${closed ? 'closed' : `${request.tender.status} (cover ordered)`} before ${STEP[request.status] ?? 'processing'}`,
      nextAttemptAt: null,
    });
  }

  private async send(em: EntityManager, request: LeasedRequest): Promise<void> {
    const answer = await this.client.requestQuote(
      request.insurer,
      { limits: request.limits, risk_information: request.riskInformation },
      request.id,
    );
    const insurerReference = parseAcknowledgement(answer);
    let promoted: boolean;
    try {
      // The acknowledgement and a callback that came before it are stored together: no crash parts them.
      promoted = await em.transactional(async (tx) => {
        const stored = await this.finish(tx, request, QuoteRequestStatus.QUEUED, {
          status: QuoteRequestStatus.PROCESSING,
          insurerReference,
          acknowledgedAt: new Date(),
          attempts: 0,
          nextAttemptAt: null,
          lastError: null,
          lastErrorDetail: null,
        });
        return stored === 1 && (await claimEarlyCallback(tx, request.insurer.id, insurerReference));
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw new PartnerError(
          Reason.invalidAcknowledgement,
          `the insurer answered with id ${insurerReference}, which it already gave another request`,
          false,
        );
      }
      throw error;
    }
    if (promoted) this.wake(request.insurer.id);
  }

  private async fetchQuote(em: EntityManager, request: LeasedRequest): Promise<void> {
    const reference = request.insurerReference!;
    const now = new Date();
    const body = await this.client.fetchQuote(request.insurer, reference);
    const answer = parseQuote(body, reference, request.limits, {
      zone: this.config.validityZone,
      now,
      // A validity already past (even before the request was sent) is an EXPIRED quote, not an invalid one.
      earliestValidity: null,
      refuseControls: false,
    });
    const listed = parseListedDocuments(body);
    // The documents are fetched, checked and stored before the quote's transaction, and become visible in it.
    const documents = listed.length > 0 ? await this.fetchDocuments(request, listed) : undefined;
    const status = statusOfAnswer(answer, now);
    let stored = false;
    try {
      stored = await em.transactional(async (tx) => {
        // Conditional on AVAILABLE: a close of the tender meanwhile made it CANCELLED, and no quote is stored.
        const updated = await this.finish(tx, request, QuoteRequestStatus.AVAILABLE, {
          status,
          quotedAt: new Date(),
          attempts: 0,
          nextAttemptAt: null,
          lastError: documents?.refused ? Reason.documentsRefused : null,
          lastErrorDetail: documents?.refused ? sanitise(documents.refused) : null,
          quoteNote: answer.note,
          validUntil: answer.validUntil,
          currency: answer.currency,
          underwriterReason: answer.reason,
        });
        if (updated !== 1) return false; // the lease was lost (whoever holds it stores the quote), or the request was cancelled
        const event = {
          kind: 'quoteReceived' as const,
          tender: request.tender,
          quoteRequestId: request.id,
          insurerId: request.insurer.id,
          status,
          at: new Date(),
        };
        for (const listener of this.options.listeners ?? []) await listener(tx, event);
        await storeOptions(tx, { id: request.id, tenderId: request.tender.id, insurerId: request.insurer.id }, answer.options);
        await documents?.record(tx);
        return true;
      });
    } finally {
      if (!stored) await documents?.discard();
    }
  }

  private fetchDocuments(request: LeasedRequest, listed: ListedDocument[]): Promise<FetchedDocuments> {
    const fetcher = this.options.documents;
    if (!fetcher) throw new PartnerError(Reason.internal, 'the quote lists documents, and this dispatcher has no document store', false);
    return fetcher.fetch(
      {
        quoteRequestId: request.id,
        tender: request.tender,
        insurerId: request.insurer.id,
        download: (url, maxBytes, consume) => this.client.fetchDocument(request.insurer, url, maxBytes, consume),
      },
      listed,
    );
  }

  /**
   * Every failed step counts an attempt. Should recording fail too (a database error, a connection lost), it is
   * recorded once more with only our own words in it, so the attempts still count and a request cannot loop.
   */
  private async recordFailure(em: EntityManager, request: LeasedRequest, error: PartnerError): Promise<void> {
    try {
      await this.storeFailure(em, request, error);
    } catch (cause) {
      this.logger.error({ err: cause, quoteRequest: request.id }, 'could not record the failure; recording it without the detail');
      const bare = new PartnerError(
        error.reason,
        'the detail of this failure could not be recorded; see the logs',
        error.retryable,
        error.retryAfterMs,
      );
      await this.storeFailure(this.orm.em.fork(), request, bare).catch((again: unknown) =>
        this.logger.error(
          { err: again, quoteRequest: request.id },
          'could not record the failure; the lease will expire and the step run again',
        ),
      );
    }
  }

  private async storeFailure(em: EntityManager, request: LeasedRequest, error: PartnerError): Promise<void> {
    const attempts = request.attempts + 1;
    const detail = sanitise(`${STEP[request.status] ?? 'processing'}: ${error.detail}`);
    this.logger.warn(
      { quoteRequest: request.id, insurer: request.insurer.id, attempts, retryable: error.retryable, reason: error.reason, detail },
      'quote request step failed',
    );
    if (!error.retryable || attempts >= this.config.maxAttempts) {
      this.observer?.failed();
      await this.finish(em, request, request.status, {
        status: QuoteRequestStatus.FAILED,
        failureReason: error.retryable ? `${error.reason} (gave up after ${attempts} attempts)` : error.reason,
        failureDetail: detail,
        lastError: error.reason,
        lastErrorDetail: detail,
        attempts,
        nextAttemptAt: null,
      });
      return;
    }
    this.observer?.retryScheduled();
    await this.finish(em, request, request.status, {
      attempts,
      lastError: error.reason,
      lastErrorDetail: detail,
      nextAttemptAt: new Date(Date.now() + retryDelay(this.config, attempts, error.retryAfterMs)),
    });
  }
}
