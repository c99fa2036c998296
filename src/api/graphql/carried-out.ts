import type { ApolloServerPlugin } from '@apollo/server';
import { defaultFieldResolver, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';

/**
 * A mutation whose resolver has returned has made its change (its transaction is committed): whatever goes wrong
 * after that (completing its payload: a non-null field that resolves to null because the viewer can no longer see
 * what it wrote, a nested field's error) must not report the change as failed, least of all as a 500 that invites a
 * retry. The schema's mutation resolvers note, per request, which of the operation's fields were carried out; the
 * plugin answers their errors as RESULT_UNAVAILABLE, says which fields were carried out, and keeps the HTTP status 200.
 */

/** The response keys (alias or name) of the mutations carried out, per request context. */
const carriedOutByContext = new WeakMap<object, Set<string>>();

const RESULT_UNAVAILABLE = 'RESULT_UNAVAILABLE';

/** Wraps every mutation's resolver of `schema` (in place) to note when it has returned. */
export function noteCarriedOutMutations(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = async (source, args, context: object, info) => {
      const result: unknown = await resolve(source, args, context, info);
      const keys = carriedOutByContext.get(context) ?? new Set<string>();
      keys.add(String(info.path.key));
      carriedOutByContext.set(context, keys);
      return result;
    };
  }
  return schema;
}

function unavailable(error: GraphQLFormattedError): GraphQLFormattedError {
  const reason =
    error.extensions?.code === 'INTERNAL_SERVER_ERROR'
      ? 'it may no longer be visible to you; read it again'
      : `${error.message.replace(/\.$/, '')}; read it again`;
  return {
    message: `The change was made, but its result cannot be shown: ${reason}`,
    locations: error.locations,
    path: error.path,
    extensions: { code: RESULT_UNAVAILABLE, carriedOut: true },
  };
}

/**
 * Answers for the mutations carried out: their errors (already formatted, so nothing internal is shown) become
 * RESULT_UNAVAILABLE, the response's `extensions.carriedOut` names them when the data is lost to a null, and the HTTP
 * status stays 200 whatever another field's error says (a REST shim of a mutation reads `data` as before).
 */
export const carriedOutMutations: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ contextValue, response }) {
        const carried = carriedOutByContext.get(contextValue);
        if (!carried || response.body.kind !== 'single') return;
        const result = response.body.singleResult;
        if (result.errors) {
          result.errors = result.errors.map((error) =>
            typeof error.path?.[0] === 'string' && carried.has(error.path[0]) ? unavailable(error) : error,
          );
          if (result.data == null) result.extensions = { ...result.extensions, carriedOut: [...carried] };
        }
        response.http.status = 200;
      },
    };
  },
};
