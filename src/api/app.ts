import 'reflect-metadata';
import type { Server } from 'node:http';
import type { MikroORM } from '@mikro-orm/core';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../platform/config';
import { DomainError } from '../platform/errors/domain-error';
import { systemClock, type Clock } from '../platform/tasks/clock';
import { PeriodicTasks, type PeriodicTask } from '../platform/tasks/periodic-task';
import { QuoteDispatcher, InsurerChecker, quotesModule, type QuoteEventListener } from '../quotes';
import { WebhookDispatcher, webhooksModule } from '../webhooks';
import { UnsubscribeTokens, mailModule, type DevMailbox, type MailSender } from '../mail';
import { AccessLogBuffer, privacyModule, type ErasureServices } from '../privacy';
import { TokenService, authModule } from '../auth';
import {
  LinkSigner,
  QuoteDocumentFetch,
  UPLOAD_PATH,
  DocumentStores,
  nameDocumentStores,
  UploadAdmission,
  documentsModule,
  type DocumentServices,
} from '../documents';
import { NO_ACCESS_RECORDS } from '../access';
import { AccessLinks, LinkKeys } from '../links';
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
import { KeptResponses } from './http/kept-responses';
import { directLane } from './http/direct-lane';
import { webhookEndpointRoutes } from './rest/webhooks/webhook-endpoint.routes';
import { admitUploads, documentRoutes } from './rest/documents/document.routes';
import { riskRoutes } from './rest/risk/risk.routes';
import { messageRoutes } from './rest/messages/message.routes';
import { pageRoutes } from './pages/page-routes';
import { questionnairePage } from './pages/questionnaire/questionnaire.page';
import { underwritingPage } from './pages/underwriting/underwriting.page';
import { PAGE_ASSETS_PATH } from './pages/page-views';
import { bindingRoutes } from './rest/binding/binding.routes';
import { renewalsRoutes } from './rest/renewals/renewals.routes';
import { devMailRoutes, unsubscribeRoutes } from './mail/mail.routes';

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
  /**
   * The gateway's one clock: the time advice exports state and periodic tasks run at, and the timers of those tasks;
   * the system clock when absent (tests fix or move it: the same data, the same bytes).
   */
  clock?: Clock;
  /**
   * Development only (main.ts, `npm start` without SMTP_URL): the mailbox in the process the mail worker sends to,
   * shown at `/dev/mail`; absent, `/dev/mail` is not found.
   */
  devMail?: DevMailbox;
}

export interface App {
  express: Express;
  /** The quote outbox worker; created idle, `main.ts` (or a test) starts it. */
  dispatcher: QuoteDispatcher;
  /** The webhook outbox worker; created idle like the dispatcher. */
  webhooks: WebhookDispatcher;
  /** The mail outbox worker when SMTP_URL is set (mail is off otherwise); created idle like the dispatcher. */
  mail?: MailSender;
  metrics: Metrics;
  /** The document store, links and limits (the sweeper and the privacy erasure use them beside the routes). */
  documents: DocumentServices;
  /** Every feature's periodic tasks (docs/architecture.md, "Periodic tasks"), started by createApp. */
  tasks: PeriodicTasks;
  /**
   * Drains the HTTP server given in `httpServer` (if any), and meanwhile stops both outbox workers (finishing the work
   * in hand and releasing its leases), the periodic tasks (finishing a run in progress) and the GraphQL server; the
   * caller owns the ORM.
   */
  stop(): Promise<void>;
}

/** What the routes, the request contexts and the tasks share: built once per app. */
interface Services {
  tokens: TokenService;
  metrics: Metrics;
  webhooks: WebhookDispatcher;
  /** Mail's sender and listeners; none of either when SMTP_URL is unset. */
  mail: ReturnType<typeof mailModule.parts>;
  /** The key of every mail's one-click unsubscribe link (derived from JWT_SECRET). */
  unsubscribeTokens: UnsubscribeTokens;
  /** Every feature's listeners to quote events: webhooks and mail. */
  quoteEvents: readonly QuoteEventListener[];
  documents: DocumentServices;
  dispatcher: QuoteDispatcher;
  erasure: ErasureServices;
  /** Who read a customer's data: recorded in a buffer written in batches (ACCESS_LOG). */
  accessLog?: AccessLogBuffer;
  uploads: UploadAdmission;
  /** Capability links: the pages for people open by them (the questionnaire, the underwriter's page). */
  links: AccessLinks;
}

/** Builds the whole gateway without listening; `src/main.ts` starts it, tests drive it over real HTTP. */
export async function createApp(deps: AppDeps): Promise<App> {
  const { config, logger, httpServer, clock = systemClock } = deps;
  const services = await buildServices({ ...deps, clock });
  const tasks = new PeriodicTasks(periodicTasks(deps, services), { logger, clock });
  const schema = await gatewaySchema();
  const production = config.nodeEnv === 'production';
  const apollo = await startApollo(schema, config.graphql, logger, {
    production,
    drain: httpServer && { httpServer, graceMs: config.shutdownGraceMs },
  });
  const app = mountRoutes(deps, services, { schema, apollo, production });
  tasks.start();

  const { dispatcher, webhooks, metrics, documents, tokens, accessLog } = services;
  const mail = services.mail.sender;
  return {
    express: app,
    dispatcher,
    webhooks,
    mail,
    metrics,
    documents,
    tasks,
    stop: async () => {
      await Promise.all([apollo.stop(), dispatcher.stop(), webhooks.stop(), mail?.stop(), tasks.stop(), tokens.standing.stop()]);
      // After the requests in flight: every read they recorded is written.
      await accessLog?.stop();
    },
  };
}

/** The token standing loaded, the outbox workers (idle), the document store named: everything but the routes. */
async function buildServices({ config, orm, workerOrm = orm, logger, clock }: AppDeps & { clock: Clock }): Promise<Services> {
  const tokens = new TokenService(config);
  // Loaded before the server listens: the standing every request checks is never empty.
  await tokens.standing.start(orm, {
    logger,
    // Directly to PostgreSQL when DATABASE_URL goes through a transaction pooler: a LISTEN needs a session of its own.
    databaseUrl: config.databaseListenUrl,
  });
  const metrics = new Metrics(orm);
  const webhooks = new WebhookDispatcher(workerOrm, config.webhooks, logger, metrics.webhooks);
  // Their keys derive from the same secret (HKDF, one key per purpose): rotating it ends every link.
  const links = new AccessLinks(new LinkKeys(config.jwtSecret ?? missing('JWT_SECRET')));
  // Links in mails name the gateway's public address; without one (development), the local one.
  const unsubscribeTokens = new UnsubscribeTokens(config.jwtSecret ?? missing('JWT_SECRET'));
  const mail = mailModule.parts(
    config.mail,
    workerOrm,
    logger,
    { baseUrl: config.mail.publicUrl ?? `http://localhost:${config.port}`, tokens: unsubscribeTokens },
    links,
  );
  const quoteEvents = [...webhooksModule.quoteEvents, ...mail.quoteEvents];
  const documents: DocumentServices = {
    store: new DocumentStores(config.documents),
    // TokenService has already refused a configuration without a secret; links are never signed with a known key.
    links: new LinkSigner(config.jwtSecret ?? missing('JWT_SECRET')),
    maxBytes: config.documents.maxBytes,
    linkTtlMs: config.documents.linkTtlMs,
    listeners: webhooksModule.documentEvents,
    clock: () => clock.now(),
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
  return {
    tokens,
    metrics,
    webhooks,
    mail,
    unsubscribeTokens,
    quoteEvents,
    documents,
    dispatcher,
    // An erasure tells the broker companies of the customer's tenders, whether asked for or by retention.
    erasure: { documents, listeners: webhooksModule.customerErasures },
    accessLog: config.accessLog.enabled ? new AccessLogBuffer(orm, config.accessLog.flushMs, logger) : undefined,
    uploads: new UploadAdmission(config.documents.uploads),
    links,
  };
}

/** Every feature's periodic tasks, in one list (docs/architecture.md, "Periodic tasks"). */
function periodicTasks({ config, orm, workerOrm = orm }: AppDeps, services: Services): PeriodicTask[] {
  return [
    ...authModule.tasks(services.tokens, orm, config.tokenStandingReconcileMs),
    ...quotesModule.tasks(workerOrm, config.quotes, services.quoteEvents),
    ...documentsModule.tasks(orm, services.documents),
    ...privacyModule.tasks(orm, workerOrm, config, services.erasure),
    ...services.mail.tasks,
  ];
}

/** What every request's context is given (request-context.ts). */
function contextDeps({ config, orm, clock = systemClock }: AppDeps, services: Services): ContextDeps {
  return {
    orm,
    tokens: services.tokens,
    wakeDispatcher: services.dispatcher.wake,
    maxRowsPerOperation: config.graphql.maxRows,
    insurerUrls: config.quotes.urlAllowList,
    tenderChanges: [
      ...quotesModule.tenderChanges,
      ...documentsModule.tenderChanges,
      ...webhooksModule.tenderChanges,
      ...services.mail.tenderChanges,
    ],
    quoteEvents: services.quoteEvents,
    riskEvents: [...quotesModule.riskEvents, ...webhooksModule.riskEvents, ...services.mail.riskEvents],
    messageEvents: [...webhooksModule.messageEvents, ...services.mail.messageEvents],
    // A check run by the checkInsurer mutation must answer within the request timeout.
    insurerChecks: new InsurerChecker(config.quotes, InsurerChecker.maxWaitWithin(config.quotes, config.requestTimeoutMs)),
    quoteValidityZone: config.quotes.validityZone,
    webhooks: {
      urlAllowList: config.webhooks.urlAllowList,
      httpsOnly: config.webhooks.httpsOnly,
      secretGraceMs: config.webhooks.secretGraceMs,
      replayPerDay: config.webhooks.replayPerDay,
    },
    documents: services.documents,
    erasure: services.erasure,
    publicUrl: config.documents.publicUrl,
    accessLog: services.accessLog ?? NO_ACCESS_RECORDS,
    clock,
    links: services.links,
  };
}

/** The Express app: the checks every request passes, then the routes in the order they are matched. */
function mountRoutes(
  deps: AppDeps,
  services: Services,
  graphql: { schema: Awaited<ReturnType<typeof gatewaySchema>>; apollo: Awaited<ReturnType<typeof startApollo>>; production: boolean },
): Express {
  const { config, orm, logger } = deps;
  const { metrics, uploads, documents } = services;
  const { schema, apollo, production } = graphql;
  const context = contextDeps(deps, services);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The client's address comes from X-Forwarded-For only from the proxies named in TRUST_PROXY.
  app.set('trust proxy', config.trustProxy);
  // Made once: the direct lane and the router share each check, and with it its state (a client's rate budget).
  const logged = requestLogging(logger, metrics.recordRequest);
  const cors = config.corsOrigins.length > 0 ? [corsPolicy(config)] : [];
  const scoped = [requestScopes(context), requestTimeout(config, [UPLOAD_PATH])];
  const rateLimited = clientRateLimit(config, orm);
  const onError = problemErrorHandler(logger);
  // The partners' polls: their answers kept per audience and revision, and a lane of their own (below).
  const kept = new KeptResponses(config.keptResponsesBytes, metrics.keptResponses);
  metrics.countKeptBytes(() => kept.size);
  const tenders = tenderRoutes(schema, kept);
  // A GET of a tender read at its canonical path takes the checks below in the same order, without the router's walk
  // past the routes in between (none of which answers such a path; the read-only guard lets every GET through).
  // Traced, it takes the router: the Express instrumentation's spans name the route that answered.
  if (!config.tracing)
    app.use(directLane([logged, securityHeaders, refuseMalformedUrls, ...cors, ...scoped, rateLimited], tenders.lane, onError));
  app.use(logged, securityHeaders, refuseMalformedUrls);
  // Uploads beyond the most at once are answered before anything else of them is looked at.
  metrics.countUploads(() => uploads.uploadsInFlight);
  app.put(`${UPLOAD_PATH}/:token`, admitUploads(uploads));
  if (cors.length > 0) app.use(cors);
  app.use(operationsRoutes(orm, metrics));
  // The pages and files for people (before authentication, like the health checks) have a per-address budget of their own.
  app.use(['/docs', '/openapi.json', EXPLORER_PATH, PAGE_ASSETS_PATH], staticAssetRateLimit(config, orm));
  app.use(docsRoutes(), explorerRoutes());
  // A mail's unsubscribe link needs no login (RFC 8058); the development mailbox only while `npm start` runs one.
  app.use(['/mail/unsubscribe', '/dev/mail'], staticAssetRateLimit(config, orm));
  app.use(unsubscribeRoutes(orm, services.unsubscribeTokens, deps.clock ?? systemClock));
  if (deps.devMail && !production) app.use(devMailRoutes(deps.devMail));
  app.use(scoped);
  // The pages opened by a link: no bearer token, rate limits of their own (per address and per link).
  app.use(
    pageRoutes({ config, orm, clock: deps.clock ?? systemClock, links: services.links, logger }, [
      questionnairePage({ riskEvents: context.riskEvents, wakeDispatcher: () => services.dispatcher.wake() }),
      // The underwriter's quote page acts as its link's insurer, through the schema's own operations.
      underwritingPage({ schema }),
    ]),
  );
  app.use(rateLimited);

  // Spec 1 and 4: /public/v1 and /api/v1 only read, whatever the path; the writes are GraphQL and /integration/v1.
  app.use(readOnlyApis());
  app.use(tenders.router);
  app.use(authRoutes(context, config));
  app.use(graphqlRoutes(apollo, { production }));
  app.use(quoteCallbackRoutes());
  app.use(webhookEndpointRoutes(schema));
  app.use(documentRoutes(schema, documents, uploads, config.requestTimeoutMs));
  app.use(riskRoutes(schema));
  app.use(messageRoutes(schema));
  app.use(bindingRoutes(schema));
  app.use(renewalsRoutes(schema));

  app.use((req, res) => sendProblem(res, new DomainError('NOT_FOUND', `No resource at ${req.method} ${req.path}`)));
  app.use(onError);
  return app;
}

function missing(name: string): never {
  throw new Error(`${name} is not set`);
}
