import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** Security headers. JSON needs no scripts: the strictest policy, relaxed where pages are served (/docs, /graphiql, /graphql). */
const policy = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
});

/**
 * Helmet's headers, asked of it once: with no nonces they are the same for every request, and helmet's dozen
 * middlewares, each setting one header, were a tenth of an unchanged poll's routing (docs/benchmark.md).
 */
function headersOf(middleware: typeof policy): readonly [string, string][] {
  const headers: [string, string][] = [];
  const response = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  let done = false;
  middleware({} as IncomingMessage, response as unknown as ServerResponse, () => (done = true));
  if (!done) throw new Error('helmet did not set its headers at once');
  return headers;
}

const HEADERS = headersOf(policy);

export const securityHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of HEADERS) res.setHeader(name, value);
  next();
};
