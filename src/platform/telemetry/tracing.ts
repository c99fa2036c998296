import type { IncomingMessage } from 'node:http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { loggablePath } from '../http/loggable-path';
import { SqlInstrumentation } from './sql-spans';
import { whenTracingStops } from './tracing-stop';

/** Probes and scrapes: frequent, and nothing to trace. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The OpenTelemetry SDK, started when this module loads (src/telemetry.ts loads it only when tracing is on): traces
 * of HTTP (in and out: the outgoing calls carry `traceparent`), Express routes, GraphQL and SQL (knex, under MikroORM
 * on both engines, named by the database conventions: sql-spans.ts), exported over OTLP as the standard `OTEL_*` variables say (the SDK reads them).
 */
const sdk = new NodeSDK({
  serviceName: process.env.OTEL_SERVICE_NAME || 'tender-exchange-gateway',
  // Traces only: metrics are /metrics's (Prometheus) and logs are stdout's; the SDK would send both by default.
  metricReaders: [],
  logRecordProcessors: [],
  instrumentations: [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED.has((req.url ?? '').split('?')[0]),
      // Document upload and download paths are credentials: spans keep them as the logs do.
      requestHook: (span, request) => {
        const url = (request as IncomingMessage).url;
        if (!('headers' in request) || url === undefined || loggablePath(url) === url) return;
        span.setAttributes({ 'http.target': loggablePath(url), 'url.path': loggablePath(url.split('?')[0]) });
      },
    }),
    // Route handlers only, named by the matched route. The dozen middlewares every request passes would be noise, and a
    // router's span, ended at once, was named after the first route of the router (`router - /auth/token` on a tender
    // read), whether or not it handled the request: the route handler's span says which one did.
    new ExpressInstrumentation({
      ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER],
      // Under Express 5 a route's span was named "request handler" alone: the route it matched names it.
      spanNameHook: ({ layerType, route }, defaultName) =>
        layerType === ExpressLayerType.REQUEST_HANDLER && route ? `request handler - ${route}` : defaultName,
    }),
    new GraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true }),
    new SqlInstrumentation(),
  ],
});
sdk.start();
whenTracingStops(() => sdk.shutdown());
