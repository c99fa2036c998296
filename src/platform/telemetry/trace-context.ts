import { context, propagation, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

/**
 * The OpenTelemetry API alone: without the SDK (tracing off, src/telemetry.ts) every call here is a no-op on
 * non-recording spans, and `currentTraceparent` answers undefined.
 */
const tracer = trace.getTracer('tender-exchange-gateway');

/** The current span's W3C `traceparent`, for work that outlives the request (an outbox row): undefined when none. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/**
 * Runs `work` in a new span of its own trace (background work is no part of a request's trace), linked to the span
 * whose `traceparent` was stored when the work was queued. Errors are recorded on the span and passed on.
 */
export function inLinkedSpan<T>(
  name: string,
  queuedBy: string | null | undefined,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const link = queuedBy ? trace.getSpanContext(propagation.extract(context.active(), { traceparent: queuedBy })) : undefined;
  return tracer.startActiveSpan(name, { root: true, attributes, links: link ? [{ context: link }] : [] }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Runs `work` in a child span of the current one (graphql-jit's executions, which no instrumentation sees). */
export function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work();
    } finally {
      span.end();
    }
  });
}
