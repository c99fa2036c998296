import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The trace context of the line, where a span is active (a request's, a dispatch's): `trace_id`, `span_id` and
 * `trace_flags` as OpenTelemetry's trace context in non-OTLP log formats names them, so a log line leads to its trace.
 */
function traceContext(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !trace.isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId, trace_flags: context.traceFlags.toString(16).padStart(2, '0') };
}

/**
 * Structured JSON logs; credentials never reach them. Built once, in `main`, from the configuration; with `tracing`
 * (an OTLP endpoint configured) each line carries its trace context, and otherwise nothing is asked per line.
 */
export function createLogger(level: LogLevel, { tracing = false }: { tracing?: boolean } = {}): Logger {
  return pino({
    level,
    ...(tracing ? { mixin: traceContext } : {}),
    redact: {
      paths: [
        'secret',
        '*.secret',
        'password',
        '*.password',
        'authorization',
        '*.authorization',
        'headers.authorization',
        'req.headers.authorization',
        'access_token',
        '*.access_token',
      ],
      censor: '[redacted]',
    },
  });
}
