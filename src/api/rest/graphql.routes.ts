import type { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { Router } from 'express';
import type { RequestContext } from '../../access/request-context';
import { DomainError } from '../../platform/errors/domain-error';
import { LIMITS } from '../../platform/validation/rules';
import { contextError } from '../graphql/apollo';
import { parseJson } from '../http/json-body';
import { requestScopeOf } from '../http/request-context';

/** `/graphql`: the Apollo server, with the request's context from its scope (GET, POST, and Sandbox in a browser). */
export function graphqlRoutes(apollo: ApolloServer<RequestContext>): Router {
  const router = Router();
  router.use(
    '/graphql',
    (_req, res, next) => {
      // Apollo Sandbox's page brings its own Content-Security-Policy.
      res.removeHeader('Content-Security-Policy');
      next();
    },
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
