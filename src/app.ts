import 'reflect-metadata';
import type { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import type { MikroORM } from '@mikro-orm/core';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { authRoutes } from './auth/auth.routes';
import { TokenService } from './auth/token.service';
import type { Config } from './config';
import { DomainError } from './errors/domain-error';
import { contextError, startApollo } from './graphql/apollo';
import type { RequestContext } from './graphql/context';
import { gatewaySchema } from './graphql/schema';
import { clientRateLimit, corsPolicy, requestLogging, requestTimeout, securityHeaders } from './http/hardening';
import { parseJson, refuseMalformedUrls } from './http/json-body';
import { problemErrorHandler, sendProblem } from './http/problem';
import { requestContext } from './http/request-context';
import { logger as defaultLogger } from './logger';
import { docsRoutes } from './openapi/docs.routes';
import { operationsRoutes } from './ops/health.routes';
import { Metrics } from './ops/metrics';
import { quoteCallbackRoutes } from './quotes/quote-callback.routes';
import { QuoteDispatcher } from './quotes/quote-dispatcher';
import { tenderRoutes } from './rest/tender.routes';

export interface AppDeps {
  config: Config;
  orm: MikroORM;
  logger?: Logger;
}

export interface App {
  express: Express;
  /** The quote outbox worker; created idle, `main.ts` (or a test) starts it. */
  dispatcher: QuoteDispatcher;
  metrics: Metrics;
  /** Stops the dispatcher (finishing work in hand) and the GraphQL server; the caller owns the HTTP server and the ORM. */
  stop(): Promise<void>;
}

/** Builds the whole gateway without listening; `src/main.ts` starts it, tests drive it over real HTTP. */
export async function createApp({ config, orm, logger = defaultLogger }: AppDeps): Promise<App> {
  const tokens = new TokenService(config);
  const metrics = new Metrics(orm);
  const dispatcher = new QuoteDispatcher(orm, config.quotes, undefined, metrics.dispatcher);
  const deps = { orm, tokens, wakeDispatcher: dispatcher.wake, maxRowsPerOperation: config.graphql.maxRows, insurerUrls: config.quotes.urlAllowList };
  const schema = await gatewaySchema();
  const apollo: ApolloServer<RequestContext> = await startApollo(schema, config.graphql);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The client's address comes from X-Forwarded-For only from the proxies named in TRUST_PROXY.
  app.set('trust proxy', config.trustProxy);
  app.use(requestLogging(logger), metrics.middleware, securityHeaders, refuseMalformedUrls);
  if (config.corsOrigins.length > 0) app.use(corsPolicy(config));
  app.use(operationsRoutes(orm, metrics), docsRoutes());
  app.use(requestTimeout(config), clientRateLimit(config, deps));

  app.use(authRoutes(deps, config));
  app.use(
    '/graphql',
    (_req, res, next) => {
      // Apollo Sandbox's page brings its own Content-Security-Policy.
      res.removeHeader('Content-Security-Policy');
      next();
    },
    parseJson('256kb'),
    expressMiddleware(apollo, {
      context: async ({ req }) => {
        try {
          return await requestContext(deps, req);
        } catch (error) {
          throw error instanceof DomainError ? contextError(error) : error;
        }
      },
    }),
  );
  app.use(tenderRoutes(deps, schema));
  app.use(quoteCallbackRoutes(deps));

  app.use((req, res) => sendProblem(res, new DomainError('NOT_FOUND', `No resource at ${req.method} ${req.path}`)));
  app.use(problemErrorHandler);

  return {
    express: app,
    dispatcher,
    metrics,
    stop: async () => {
      await dispatcher.stop();
      await apollo.stop();
    },
  };
}
