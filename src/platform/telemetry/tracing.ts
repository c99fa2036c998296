import type { IncomingMessage } from 'node:http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KnexInstrumentation } from '@opentelemetry/instrumentation-knex';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { loggablePath } from '../http/loggable-path';
import { whenTracingStops } from './tracing-stop';

/** Probes and scrapes: frequent, and nothing to trace. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The OpenTelemetry SDK, started when this module loads (src/telemetry.ts loads it only when tracing is on): traces
 * of HTTP (in and out: the outgoing calls carry `traceparent`), Express routes, GraphQL and SQL (knex, under MikroORM
 * on both engines), exported over OTLP as the standard `OTEL_*` variables say (the SDK reads them).
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
    // Route handlers and routers; the dozen middlewares every request passes would be noise.
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    new GraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true }),
    new KnexInstrumentation(),
  ],
});
sdk.start();
whenTracingStops(() => sdk.shutdown());
