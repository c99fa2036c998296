import pino, { type Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Structured JSON logs; credentials never reach them. Built once, in `main`, from the configuration. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
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
