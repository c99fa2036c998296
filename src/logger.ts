import pino from 'pino';

/** Structured JSON logs; credentials never reach them. */
export const logger = pino({
  level: process.env.LOG_LEVEL || 'info',
  redact: {
    paths: ['secret', '*.secret', 'password', '*.password', 'authorization', '*.authorization', 'headers.authorization', 'req.headers.authorization', 'access_token', '*.access_token'],
    censor: '[redacted]',
  },
});
