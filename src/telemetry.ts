import { tracingEnabled } from './platform/config';

/*
 * OpenTelemetry tracing, main.ts's first import: the instrumentations hook http, express, graphql and knex, so they
 * must be registered before any of those is first loaded; hence a synchronous require, not import(). Off unless an
 * OTLP endpoint is configured, and then the SDK is not even loaded.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
if (tracingEnabled(process.env)) require('./platform/telemetry/tracing');
