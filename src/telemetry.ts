import { tracingEnabled } from './platform/config';

/**
 * OpenTelemetry tracing, main.ts's first import: the instrumentations hook http, express, graphql and knex, so they
 * must be registered before any of those is first loaded. Off unless an OTLP endpoint is configured; off, not even
 * the SDK is loaded. Answers what the shutdown awaits: the spans still buffered, exported.
 */
export const stopTelemetry: () => Promise<void> = tracingEnabled(process.env)
  ? // A synchronous load, unlike import(): the instrumentations must be in place before main.ts's next import.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('./platform/telemetry/tracing') as typeof import('./platform/telemetry/tracing')).startTracing()
  : async () => undefined;
