import type { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { Router, type RequestHandler, type Response } from 'express';
import type { RequestContext } from '../../access';
import { DomainError } from '../../platform/errors/domain-error';
import { LIMITS } from '../../platform/validation/rules';
import { contextError } from '../graphql/apollo';
import { parseJson } from '../http/json-body';
import { requestScopeOf } from '../http/request-context';

/**
 * Apollo Sandbox's page (the landing page a browser's GET of /graphql gets outside production) brings its own
 * Content-Security-Policy in a meta tag, which the gateway's `default-src 'none'` would override: only that HTML answer
 * goes without it, decided by what is sent, not by guessing Apollo's content negotiation. Every JSON answer keeps it,
 * and so does the production page, which loads nothing.
 */
const landingPageKeepsItsOwnPolicy: RequestHandler = (_req, res, next) => {
  const writeHead = res.writeHead.bind(res);
  res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
    if (/^text\/html\b/i.test(String(this.getHeader('content-type') ?? ''))) this.removeHeader('Content-Security-Policy');
    return writeHead(...args);
  } as Response['writeHead'];
  next();
};

/** `/graphql`: the Apollo server, with the request's context from its scope (GET, POST, and a landing page in a browser). */
export function graphqlRoutes(apollo: ApolloServer<RequestContext>, { production }: { production: boolean }): Router {
  const router = Router();
  router.use(
    '/graphql',
    ...(production ? [] : [landingPageKeepsItsOwnPolicy]),
    parseJson(LIMITS.graphqlBodyBytes),
    expressMiddleware(apollo, {
      context: async ({ res }) => {
        try {
          return await requestScopeOf(res).requestContext();
        } catch (error) {
          throw error instanceof DomainError ? contextError(error) : error;
        }
      },
    }),
  );
  return router;
}
