import 'reflect-metadata';
import type { Server } from 'node:http';
import type { MikroORM } from '@mikro-orm/core';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../platform/config';
import { DomainError } from '../platform/errors/domain-error';
import { QuoteDispatcher, cancelQuoteRequestsOfClosedTender, InsurerChecker } from '../quotes';
import { WebhookDispatcher, documentEventsToWebhooks, quoteEventsToWebhooks, tenderChangesToWebhooks } from '../webhooks';
import { TokenService } from '../auth';
import { LinkSigner, createDocumentStore, policyDocumentCheck, sweepDocuments, type DocumentServices } from '../documents';
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
import { documentRoutes } from './rest/documents/document.routes';

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
  /**
   * Drains the HTTP server given in `httpServer` (if any), and meanwhile stops both outbox workers (finishing the work
   * in hand and releasing its leases) and the GraphQL server; the caller owns the ORM.
   */
  stop(): Promise<void>;
}

/** Builds the whole gateway without listening; `src/main.ts` starts it, tests drive it over real HTTP. */
export async function createApp({ config, orm, workerOrm = orm, logger, httpServer }: AppDeps): Promise<App> {
  const tokens = new TokenService(config);
  const metrics = new Metrics(orm);
  // Who reacts to quotation events inside their transactions, whether a request or the dispatcher records them.
  const quoteEvents = [quoteEventsToWebhooks];
  // On PostgreSQL background work has connections of its own: a burst of it never takes the requests'.
  const dispatcher = new QuoteDispatcher(workerOrm, config.quotes, { logger, observer: metrics.dispatcher, listeners: quoteEvents });
  const webhooks = new WebhookDispatcher(workerOrm, config.webhooks, logger, metrics.webhooks);
  const documents: DocumentServices = {
    store: createDocumentStore(config.documents.store),
    // TokenService has already refused a configuration without a secret; links are never signed with a known key.
    links: new LinkSigner(config.jwtSecret ?? missing('JWT_SECRET')),
    maxBytes: config.documents.maxBytes,
    linkTtlMs: config.documents.linkTtlMs,
    listeners: [documentEventsToWebhooks],
  };
  // Unfinished uploads leave nothing behind for long: expired slots, their bytes, stale temporary files.
  const sweeper = setInterval(() => {
    sweepDocuments(orm.em.fork(), documents).catch((error: unknown) => logger.warn({ err: error }, 'document sweep failed'));
  }, config.documents.linkTtlMs).unref();
  const deps: ContextDeps = {
    orm,
    tokens,
    wakeDispatcher: dispatcher.wake,
    maxRowsPerOperation: config.graphql.maxRows,
    insurerUrls: config.quotes.urlAllowList,
    tenderChanges: [cancelQuoteRequestsOfClosedTender, policyDocumentCheck, tenderChangesToWebhooks],
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
    publicUrl: config.documents.publicUrl,
  };
  const schema = await gatewaySchema();
  const apollo = await startApollo(schema, config.graphql, logger, httpServer && { httpServer, graceMs: config.shutdownGraceMs });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The client's address comes from X-Forwarded-For only from the proxies named in TRUST_PROXY.
  app.set('trust proxy', config.trustProxy);
  app.use(requestLogging(logger), metrics.middleware, securityHeaders, refuseMalformedUrls);
  if (config.corsOrigins.length > 0) app.use(corsPolicy(config));
  app.use(operationsRoutes(orm, metrics));
  // The pages and files for people (before authentication, like the health checks) have a per-address budget of their own.
  app.use(['/docs', '/openapi.json', EXPLORER_PATH], staticAssetRateLimit(config, orm));
  app.use(docsRoutes(), explorerRoutes());
  app.use(requestScopes(deps), requestTimeout(config), clientRateLimit(config, orm));

  // Spec 1 and 4: /public/v1 and /api/v1 only read, whatever the path; the writes are GraphQL and /integration/v1.
  app.use(readOnlyApis());
  app.use(authRoutes(deps, config));
  app.use(graphqlRoutes(apollo));
  app.use(tenderRoutes(schema));
  app.use(quoteCallbackRoutes());
  app.use(webhookEndpointRoutes(schema));
  app.use(documentRoutes(schema, documents));

  app.use((req, res) => sendProblem(res, new DomainError('NOT_FOUND', `No resource at ${req.method} ${req.path}`)));
  app.use(problemErrorHandler(logger));

  return {
    express: app,
    dispatcher,
    webhooks,
    metrics,
    documents,
    stop: async () => {
      clearInterval(sweeper);
      await Promise.all([apollo.stop(), dispatcher.stop(), webhooks.stop()]);
    },
  };
}

function missing(name: string): never {
  throw new Error(`${name} is not set`);
}
