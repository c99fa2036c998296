import 'reflect-metadata';
import type { Server } from 'node:http';
import type { MikroORM } from '@mikro-orm/core';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../platform/config';
import { DomainError } from '../platform/errors/domain-error';
import { QuoteDispatcher, cancelQuoteRequestsOfClosedTender, cancelQuoteRequestsOnOrder, InsurerChecker } from '../quotes';
import {
  WebhookDispatcher,
  customerErasuresToWebhooks,
  documentEventsToWebhooks,
  quoteEventsToWebhooks,
  tenderChangesToWebhooks,
} from '../webhooks';
import { RetentionSweep, type ErasureServices } from '../privacy';
import { TokenService } from '../auth';
import { databaseEngine } from '../platform/db/orm-options';
import {
  LinkSigner,
  QuoteDocumentFetch,
  UPLOAD_PATH,
  DocumentStores,
  nameDocumentStores,
  UploadAdmission,
  policyDocumentCheck,
  sweepDocuments,
  type DocumentServices,
} from '../documents';
import { AccessLogBuffer, sweepAccessLog } from '../privacy';
import { NO_ACCESS_RECORDS } from '../access';
import { startApollo } from './graphql/apollo';
import { gatewaySchema } from './graphql/schema';
import { corsPolicy } from './http/cors-policy';
import { refuseMalformedUrls } from './http/json-body';
import { Metrics } from './http/metrics';
import { problemErrorHandler, sendProblem } from './http/problem';
import { clientRateLimit, staticAssetRateLimit } from './http/rate-limits';
import { requestScopes, type ContextDeps } from './http/request-context';
import { requestLogging } from './http/request-logging';
import { requestTimeout } from './http/request-timeout';
import { securityHeaders } from './http/security-headers';
import { authRoutes } from './rest/auth.routes';
import { docsRoutes } from './rest/openapi/docs.routes';
import { EXPLORER_PATH, explorerRoutes } from './rest/explorer/explorer.routes';
import { graphqlRoutes } from './rest/graphql.routes';
import { operationsRoutes } from './rest/health.routes';
import { quoteCallbackRoutes } from './rest/quote-callback.routes';
import { readOnlyApis } from './rest/read-only-apis';
import { tenderRoutes } from './rest/tenders/tender.routes';
import { webhookEndpointRoutes } from './rest/webhooks/webhook-endpoint.routes';
import { admitUploads, documentRoutes } from './rest/documents/document.routes';

interface AppDeps {
  config: Config;
  orm: MikroORM;
  /** The outbox workers' own pool on the same database (`openWorkerDatabase`, PostgreSQL); `orm` when absent. */
  workerOrm?: MikroORM;
  logger: Logger;
  /**
   * The HTTP server that will serve the app (main.ts): `stop()` then drains it first, stopping new connections and
   * giving requests in flight `SHUTDOWN_GRACE_MS`. Without it the caller closes its server itself (tests).
   */
  httpServer?: Server;
  /** The time advice exports state; the system clock when absent (tests fix it: the same data, the same bytes). */
  clock?: () => Date;
}

export interface App {
  express: Express;
  /** The quote outbox worker; created idle, `main.ts` (or a test) starts it. */
  dispatcher: QuoteDispatcher;
  /** The webhook outbox worker; created idle like the dispatcher. */
  webhooks: WebhookDispatcher;
  metrics: Metrics;
  /** The document store, links and limits (the sweeper and the privacy erasure use them beside the routes). */
  documents: DocumentServices;
  /** RETENTION_PERSONAL_DATA's schedule, when set; created idle like the dispatcher. */
  retention?: RetentionSweep;
  /**
   * Drains the HTTP server given in `httpServer` (if any), and meanwhile stops both outbox workers (finishing the work
   * in hand and releasing its leases) and the GraphQL server; the caller owns the ORM.
   */
  stop(): Promise<void>;
}

/** Builds the whole gateway without listening; `src/main.ts` starts it, tests drive it over real HTTP. */
export async function createApp({ config, orm, workerOrm = orm, logger, httpServer, clock = () => new Date() }: AppDeps): Promise<App> {
  const tokens = new TokenService(config);
  // Loaded before the server listens: the standing every request checks is never empty.
  await tokens.standing.start(orm, {
    reconcileMs: config.tokenStandingReconcileMs,
    logger,
    databaseUrl: databaseEngine(config.databaseUrl) === 'postgresql' ? config.databaseUrl : undefined,
  });
  const metrics = new Metrics(orm);
  // Who reacts to quotation events inside their transactions, whether a request or the dispatcher records them.
  const quoteEvents = [quoteEventsToWebhooks];
  const webhooks = new WebhookDispatcher(workerOrm, config.webhooks, logger, metrics.webhooks);
  const documents: DocumentServices = {
    store: new DocumentStores(config.documents),
    // TokenService has already refused a configuration without a secret; links are never signed with a known key.
    links: new LinkSigner(config.jwtSecret ?? missing('JWT_SECRET')),
    maxBytes: config.documents.maxBytes,
    linkTtlMs: config.documents.linkTtlMs,
    listeners: [documentEventsToWebhooks],
    clock,
  };
  // Rows from before each document named its store are in the one configured now (docs/operations.md).
  await nameDocumentStores(orm.em.fork(), documents.store.name);
  // On PostgreSQL background work has connections of its own: a burst of it never takes the requests'. The documents a
  // quote lists are fetched into the document store (quotes declare the port; documents, above them, implement it).
  const dispatcher = new QuoteDispatcher(workerOrm, config.quotes, {
    logger,
    observer: metrics.dispatcher,
    listeners: quoteEvents,
    documents: new QuoteDocumentFetch(() => workerOrm.em.fork(), documents),
  });
  // An erasure tells the broker companies of the customer's tenders, whether asked for or by retention.
  const erasure: ErasureServices = { documents, listeners: [customerErasuresToWebhooks] };
  const retention = config.privacy.retention
    ? new RetentionSweep(workerOrm, {
        period: config.privacy.retention,
        intervalMs: config.privacy.sweepIntervalMs,
        services: erasure,
        logger,
      })
    : undefined;
  // Unfinished uploads (and bytes of deleted documents) leave nothing behind for long: expired slots, their bytes, stale temporary files.
  const sweeper = setInterval(() => {
    sweepDocuments(orm.em.fork(), documents).catch((error: unknown) => logger.warn({ err: error }, 'document sweep failed'));
  }, config.documents.linkTtlMs).unref();
  // Who read a customer's data: recorded in a buffer written in batches; old records swept on every instance.
  const accessLog = config.accessLog.enabled ? new AccessLogBuffer(orm, config.accessLog.flushMs, logger) : undefined;
  const accessLogSweeper = setInterval(() => {
    sweepAccessLog(orm.em.fork(), config.accessLog.retentionMs).catch((error: unknown) =>
      logger.warn({ err: error }, 'access log sweep failed'),
    );
  }, ACCESS_LOG_SWEEP_MS).unref();
  const deps: ContextDeps = {
    orm,
    tokens,
    wakeDispatcher: dispatcher.wake,
    maxRowsPerOperation: config.graphql.maxRows,
    insurerUrls: config.quotes.urlAllowList,
    tenderChanges: [cancelQuoteRequestsOfClosedTender, cancelQuoteRequestsOnOrder, policyDocumentCheck, tenderChangesToWebhooks],
    quoteEvents,
    // A check run by the checkInsurer mutation must answer within the request timeout.
    insurerChecks: new InsurerChecker(config.quotes, InsurerChecker.maxWaitWithin(config.quotes, config.requestTimeoutMs)),
    quoteValidityZone: config.quotes.validityZone,
    webhooks: {
      urlAllowList: config.webhooks.urlAllowList,
      httpsOnly: config.webhooks.httpsOnly,
      secretGraceMs: config.webhooks.secretGraceMs,
      replayPerDay: config.webhooks.replayPerDay,
    },
    documents,
    erasure,
    publicUrl: config.documents.publicUrl,
    accessLog: accessLog ?? NO_ACCESS_RECORDS,
  };
  const schema = await gatewaySchema();
  const production = config.nodeEnv === 'production';
  const apollo = await startApollo(schema, config.graphql, logger, {
    production,
    drain: httpServer && { httpServer, graceMs: config.shutdownGraceMs },
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The client's address comes from X-Forwarded-For only from the proxies named in TRUST_PROXY.
  app.set('trust proxy', config.trustProxy);
  app.use(requestLogging(logger, metrics.recordRequest), securityHeaders, refuseMalformedUrls);
  // Uploads beyond the most at once are answered before anything else of them is looked at.
  const uploads = new UploadAdmission(config.documents.uploads);
  metrics.countUploads(() => uploads.uploadsInFlight);
  app.put(`${UPLOAD_PATH}/:token`, admitUploads(uploads));
  if (config.corsOrigins.length > 0) app.use(corsPolicy(config));
  app.use(operationsRoutes(orm, metrics));
  // The pages and files for people (before authentication, like the health checks) have a per-address budget of their own.
  app.use(['/docs', '/openapi.json', EXPLORER_PATH], staticAssetRateLimit(config, orm));
  app.use(docsRoutes(), explorerRoutes());
  app.use(requestScopes(deps), requestTimeout(config, [UPLOAD_PATH]), clientRateLimit(config, orm));

  // Spec 1 and 4: /public/v1 and /api/v1 only read, whatever the path; the writes are GraphQL and /integration/v1.
  app.use(readOnlyApis());
  // The partners' polls first: every router a request passes before its own is matched against it.
  app.use(tenderRoutes(schema));
  app.use(authRoutes(deps, config));
  app.use(graphqlRoutes(apollo, { production }));
  app.use(quoteCallbackRoutes());
  app.use(webhookEndpointRoutes(schema));
  app.use(documentRoutes(schema, documents, uploads, config.requestTimeoutMs));

  app.use((req, res) => sendProblem(res, new DomainError('NOT_FOUND', `No resource at ${req.method} ${req.path}`)));
  app.use(problemErrorHandler(logger));

  return {
    express: app,
    dispatcher,
    webhooks,
    metrics,
    documents,
    retention,
    stop: async () => {
      clearInterval(sweeper);
      clearInterval(accessLogSweeper);
      await Promise.all([apollo.stop(), dispatcher.stop(), webhooks.stop(), retention?.stop(), tokens.standing.stop()]);
      // After the requests in flight: every read they recorded is written.
      await accessLog?.stop();
    },
  };
}

/** How often each instance removes access-log records past ACCESS_LOG_RETENTION. */
const ACCESS_LOG_SWEEP_MS = 60 * 60_000;

function missing(name: string): never {
  throw new Error(`${name} is not set`);
}
