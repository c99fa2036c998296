import { Router } from 'express';
import { DomainError } from '../../platform/errors/domain-error';
import { sendProblem } from '../http/problem';

/** The two tender read APIs of spec 1 and 4: insurers' and brokers'. */
const READ_API_PREFIXES = ['/public/v1', '/api/v1'];

/** The REST forms of writes integrators need (DESIGN 7): thin shims over GraphQL mutations, outside the read APIs. */
export const INTEGRATION_PREFIX = '/integration/v1';

const READ_METHODS = ['GET', 'HEAD'];
const ALLOW = READ_METHODS.join(', ');

/** The writes that lived under the read APIs before they moved, so an integrator still calling them learns where they went. */
const MOVED: readonly { path: RegExp; what: string }[] = [
  { path: /^\/public\/v1(\/tenders\/[^/]+\/policy-documentation)\/?$/i, what: 'policy documentation is confirmed with POST' },
  { path: /^\/(?:public|api)\/v1(\/webhook-endpoints(?:\/[^?]*)?)$/i, what: 'webhook endpoints are managed at' },
];

function movedWrite(path: string): string | undefined {
  for (const { path: pattern, what } of MOVED) {
    const match = pattern.exec(path);
    if (match) return `${what} ${INTEGRATION_PREFIX}${match[1].replace(/\/$/, '')}`;
  }
  return undefined;
}

/**
 * Before any route: every path under the read APIs, known or not, answers GET and HEAD only; any other method is a
 * 405 naming them. CORS preflights from allowed origins never get here: the CORS policy answers them first.
 */
export function readOnlyApis(): Router {
  const router = Router();
  router.use(READ_API_PREFIXES, (req, res, next) => {
    const path = req.originalUrl.split('?')[0];
    const moved = movedWrite(path);
    if (READ_METHODS.includes(req.method)) {
      if (moved) return sendProblem(res, new DomainError('NOT_FOUND', `No resource at ${req.method} ${path}: ${moved}`));
      return next();
    }
    const detail = moved ? `The tender read APIs only read (GET, HEAD): ${moved}` : 'The tender read APIs only read: use GET or HEAD';
    sendProblem(res, new DomainError('METHOD_NOT_ALLOWED', detail), { Allow: ALLOW });
  });
  return router;
}
