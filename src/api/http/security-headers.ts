import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** Security headers. JSON needs no scripts: the strictest policy, relaxed where pages are served (/docs, /graphiql, /graphql). */
export const securityHeaders: RequestHandler = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
});
