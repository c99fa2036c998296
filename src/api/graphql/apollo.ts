import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import type { Server } from 'node:http';
import { HeaderMap } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import { GraphQLError, OperationTypeNode, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { may, rolesFor, type RequestContext } from '../../access';
import { DomainError, type ErrorCode } from '../../platform/errors/domain-error';
import { BEARER_CHALLENGE, HTTP_STATUS } from '../../platform/errors/error-mapping';
import { asDomainError } from '../../platform/errors/normalize';
import type { Logger } from 'pino';
import type { OperationLimitsConfig } from '../../platform/config';
import { OperationGate } from './operation-gate';
import { ASSUMED_ROWS, QUOTE_SIZE_BOUNDS, keptRowEstimate, pricedTenders, type QuoteSizes } from './operation-cost';
import { storedQuoteSizes } from '../../quotes';
import { rowsOfJson } from '../../platform/db/row-budget';
import { jitGateway, usesIntrospection } from './jit-executor';
import { boundedNames, controlCharacterScreen } from './request-screening';
import { graphqlLandingPage } from './landing-page';
import { carriedOutMutations } from './carried-out';

/** Codes Apollo and graphql-js raise for a bad request; their messages are safe to show. */
const CLIENT_ERROR_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/**
 * Apollo refuses a persisted query whose `sha256Hash` is not the hash of the query it comes with (400), with this
 * message and no code; it would be masked as an internal error. Apollo's client library names the case so.
 */
const APQ_HASH_MISMATCH = { apolloMessage: 'provided sha does not match query', code: 'PERSISTED_QUERY_HASH_MISMATCH' } as const;

/** The GraphQL side of the one error mapping: domain codes become `extensions.code`, the rest is hidden. */
const formatGraphQLError =
  (logger: Logger) =>
  (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const shown = formatGraphQLErrorUnmasked(formatted, error, logger);
    return { ...shown, message: withoutSuggestions(shown.message) };
  };

/**
 * graphql-js suggests field, argument, type and enum value names ("Did you mean the enum value ...?") in
 * validation and variable errors; armor masks only some of them. Suggestions map the schema for strangers.
 */
const withoutSuggestions = (message: string): string => message.replace(/ ?Did you mean [^?]*\?/g, '').trim();

function formatGraphQLErrorUnmasked(formatted: GraphQLFormattedError, error: unknown, logger: Logger): GraphQLFormattedError {
  const unwrapped = unwrapResolverError(error);
  const original = asDomainError(unwrapped);
  if (original) {
    return {
      message: original.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: {
        code: original.code,
        ...(original.errors.length > 0 ? { errors: original.errors } : {}),
        ...(original.problems.length > 0 ? { problems: original.problems } : {}),
      },
    };
  }
  const code = formatted.extensions?.code;
  if (formatted.message === APQ_HASH_MISMATCH.apolloMessage && code === 'INTERNAL_SERVER_ERROR' && !formatted.path) {
    return {
      message: 'extensions.persistedQuery.sha256Hash is not the SHA-256 hash (hex) of the query sent with it',
      extensions: { code: APQ_HASH_MISMATCH.code },
    };
  }
  if (typeof code === 'string' && (CLIENT_ERROR_CODES.has(code) || code in HTTP_STATUS) && code !== 'INTERNAL_SERVER_ERROR') {
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
  }
  logger.error({ err: unwrapped }, 'unexpected GraphQL error');
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/** A DomainError raised while building the context (authentication) becomes a GraphQL error with its HTTP status. */
export function contextError(error: DomainError): GraphQLError {
  const headers = new HeaderMap();
  if (error.code === 'UNAUTHENTICATED') headers.set('www-authenticate', BEARER_CHALLENGE);
  return new GraphQLError(error.message, {
    extensions: { code: error.code, http: { status: HTTP_STATUS[error.code].status, headers } },
  });
}

/**
 * Per-request rules: introspection for the roles the access policy names (every authenticated client; graphql-js's
 * MaxIntrospectionDepthRule refuses the queries that cycle through the schema);
 * subscriptions are not offered; and an operation that produced no data at all answers with the HTTP status
 * of its first error (404 for an unknown tender, 403 for a forbidden mutation), partial results stay 200.
 */
const requestPolicy: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ document, operation, contextValue }) {
        if (operation?.operation === OperationTypeNode.SUBSCRIPTION) {
          throw new GraphQLError('Subscriptions are not supported', { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
        }
        if (!may(contextValue.viewer, 'introspection') && usesIntrospection(document)) {
          throw new GraphQLError(`Introspection is available to ${rolesFor('introspection').join(' and ')} tokens only`, {
            extensions: { code: 'FORBIDDEN', http: { status: 403 } },
          });
        }
      },
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const { data, errors } = response.body.singleResult;
        const code = errors?.[0]?.extensions?.code;
        if (data != null || typeof code !== 'string' || !(code in HTTP_STATUS)) return;
        if (response.http.status === undefined || response.http.status === 200)
          response.http.status = HTTP_STATUS[code as ErrorCode].status;
      },
    };
  },
};

/**
 * Limits on what an operation may cost (DESIGN 6): rows estimated against `maxRows` before it runs, and expensive
 * operations through the gate. Introspection is priced at nothing.
 */
function operationCost(schema: GraphQLSchema, limits: OperationLimitsConfig): ApolloServerPlugin<RequestContext> {
  const gate = new OperationGate(limits.expensiveConcurrency, limits.queueTimeoutMs, limits.queuePerClient);
  // Past the wait a client was allowed, it is told to come back no sooner than that wait.
  const retryAfter = String(Math.max(1, Math.ceil(limits.queueTimeoutMs / 1000)));
  return {
    async requestDidStart() {
      let release: (() => void) | undefined;
      // Apollo runs the plugins' didResolveOperation side by side: another plugin may refuse the request (and
      // the response go out) while this one still waits for a slot. A slot granted after that is given back.
      let answered = false;
      return {
        async didResolveOperation({ document, operationName, request, contextValue }) {
          let rows: number;
          try {
            const sizes = await quoteSizes(document, operationName ?? undefined, request.variables ?? {}, contextValue);
            rows = keptRowEstimate(schema, document, operationName ?? undefined, request.variables ?? {}, sizes);
          } catch (error) {
            // Variables that do not fit: refused here, as execution would, rather than let through unpriced.
            throw new GraphQLError((error as Error).message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
          }
          if (rows > limits.maxRows) {
            throw new GraphQLError(
              `The operation may read up to ${rows} rows; at most ${limits.maxRows} are allowed per operation ` +
                `(a tenders page counts its limit, each proposal ${ASSUMED_ROWS.proposal} and each history ${ASSUMED_ROWS.history}): ask for less, or in several operations`,
              { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } },
            );
          }
          if (rows < limits.expensiveRows) return;
          try {
            release = await gate.enter(contextValue.viewer.appId);
            if (answered) release();
          } catch (error) {
            const busy = error as DomainError;
            throw new GraphQLError(busy.message, {
              extensions: {
                code: busy.code,
                http: { status: HTTP_STATUS[busy.code].status, headers: new HeaderMap([['retry-after', retryAfter]]) },
              },
            });
          }
        },
        async willSendResponse() {
          answered = true;
          release?.();
        },
      };
    },
  };
}

/**
 * What the operation's tenders' quote requests hold, where it names them (operation-cost.ts, `pricedTenders`): the most
 * requests of one of them and the largest risk information among them, as stored. A tender the viewer may not see (or
 * none at all) adds nothing: the operation reads nothing of it. Otherwise the bounds.
 */
async function quoteSizes(
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
  { em, viewer }: RequestContext,
): Promise<QuoteSizes> {
  const tenders = pricedTenders(document, operationName, variables);
  if (!tenders) return QUOTE_SIZE_BOUNDS;
  const stored = [...(await storedQuoteSizes(em, viewer, tenders)).values()];
  return {
    requestsPerTender: Math.max(0, ...stored.map((sizes) => sizes.requests)),
    riskInformationRows: rowsOfJson(Math.max(0, ...stored.map((sizes) => sizes.largestRiskInformationBytes))),
  };
}

/**
 * Static limits on every operation (graphql-armor): depth, aliases, directives and tokens. Introspection is exempt from depth. What an operation may
 * read is limited by `operationCost`.
 */
const OPERATION_LIMITS = { maxDepth: 12, maxAliases: 50, maxDirectives: 20, maxTokens: 2000 } as const;

/** What the parsed documents of GraphQL clients may take, estimated as Apollo does (their JSON's length). */
const DOCUMENT_STORE_BYTES = 4 * 2 ** 20;

/** The HTTP server that `stop()` drains first: it stops accepting and gives requests in flight `graceMs` to finish. */
interface HttpDrain {
  httpServer: Server;
  graceMs: number;
}

/** Where the server runs: in production, /graphql's landing page loads nothing from any other host. */
interface ApolloSettings {
  production: boolean;
  drain?: HttpDrain;
}

export async function startApollo(
  schema: GraphQLSchema,
  limits: OperationLimitsConfig,
  logger: Logger,
  { production, drain }: ApolloSettings,
): Promise<ApolloServer<RequestContext>> {
  const armor = new ApolloArmor({
    maxDepth: { n: OPERATION_LIMITS.maxDepth, ignoreIntrospection: true },
    // Replaced by the row estimate of operationCost, which grows with the pages asked for.
    costLimit: { enabled: false },
    maxAliases: { n: OPERATION_LIMITS.maxAliases },
    maxDirectives: { n: OPERATION_LIMITS.maxDirectives },
    // Tokens are limited by graphql-js's own parser below: armor's token plugin turns syntax errors into 500s.
    maxTokens: { enabled: false },
    // Suggestions are removed from every message by formatGraphQLError; armor's mask missed enum values.
    blockFieldSuggestion: { enabled: false },
  }).protect();
  const server = new ApolloServer<RequestContext>({
    // Parsed and validated documents, kept by their text. Apollo's default keeps 30 MiB of them (by their JSON's
    // length; more on the heap), which a client sending distinct large documents filled: a frontend's operations
    // take well under a megabyte, and a document not kept is parsed and validated again (docs/benchmark.md).
    documentStore: new InMemoryLRUCache<DocumentNode>({ maxSize: DOCUMENT_STORE_BYTES }),
    // Our own schema; repeated documents executed by graphql-jit (jit-executor.ts).
    gateway: jitGateway(schema),
    introspection: true,
    ...armor,
    // Names over 256 characters are refused before Apollo or the compiled documents keep anything of them.
    validationRules: [...armor.validationRules, boundedNames],
    parseOptions: { maxTokens: OPERATION_LIMITS.maxTokens },
    formatError: formatGraphQLError(logger),
    // Compact JSON: Apollo pretty-prints by default, a measurable share of a page (docs/benchmark.md).
    stringifyResult: (result) => JSON.stringify(result),
    // The process's one shutdown path is main.ts's: Apollo's own handler (installed unless NODE_ENV=test) stops
    // the server and then signals the process again, killing it while requests are still in flight.
    stopOnTerminationSignals: false,
    plugins: [
      ...(drain ? [ApolloServerPluginDrainHttpServer({ httpServer: drain.httpServer, stopGracePeriodMillis: drain.graceMs })] : []),
      ...armor.plugins,
      requestPolicy,
      // After requestPolicy: a mutation carried out is answered 200 whatever status an error would give.
      carriedOutMutations,
      controlCharacterScreen,
      operationCost(schema, limits),
      graphqlLandingPage(production),
      // We send no cache hints; the plugin would otherwise wrap every field resolver of every request.
      ApolloServerPluginCacheControlDisabled(),
    ],
  });
  await server.start();
  return server;
}
