import type { ApolloServerPlugin } from '@apollo/server';
import { BREAK, GraphQLError, visit, type ASTNode, type DocumentNode, type ValidationRule } from 'graphql';
import { controlCharacterIn } from '../../platform/validation/rules';

/**
 * The longest name a document may use: operations, fragments, aliases, variables, fields, arguments, keys of
 * literals. Names are kept with what is kept of a document (the compiled documents' bookkeeping); the longest
 * name of the schema has 40 characters, a frontend's operation names a few dozen.
 */
export const MAX_NAME_LENGTH = 256;

/**
 * A validation rule: a document with a name over MAX_NAME_LENGTH is refused (400 `GRAPHQL_VALIDATION_FAILED`)
 * before Apollo keeps it; the message does not repeat the name.
 */
export const boundedNames: ValidationRule = (context) => {
  let reported = false;
  return {
    Name(node) {
      if (reported || node.value.length <= MAX_NAME_LENGTH) return;
      reported = true;
      context.reportError(
        new GraphQLError(
          `A name in the document has ${node.value.length} characters; names (operations, fragments, aliases, variables) may have at most ${MAX_NAME_LENGTH}`,
          {
            nodes: node,
          },
        ),
      );
    },
  };
};

interface Found {
  character: string;
  where: string;
  node?: ASTNode;
}

/** The first control character in a string of the document: literals, block strings, JSON literals, defaults. */
function inDocument(document: DocumentNode): Found | undefined {
  let found: Found | undefined;
  visit(document, {
    StringValue(node) {
      const character = controlCharacterIn(node.value);
      if (!character) return undefined;
      found = { character, where: 'A string of the query', node };
      return BREAK;
    },
  });
  return found;
}

/** The first control character in the variables, in a string or a key of a JSON object; walked without recursion. */
function inVariables(variables: Record<string, unknown>): Found | undefined {
  const pending: [unknown, string][] = [[variables, 'variables']];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'string') {
      const character = controlCharacterIn(value);
      if (character) return { character, where: path };
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push([item, `${path}[${index}]`]));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const character = controlCharacterIn(key);
        if (character) return { character, where: `A key in ${path}` };
        pending.push([item, `${path}.${key}`]);
      }
    }
  }
  return undefined;
}

/**
 * Every string a GraphQL request brings, in its document or its variables, is refused (400 `BAD_USER_INPUT`)
 * when it holds a C0 control character (rules.ts `controlCharacterIn`, the part of the text rule every string obeys): once, here, before anything runs or is stored.
 * GraphQL's escapes (`\u{0}`, `\u0000`) reach the strings past the raw-body screen, which sees only JSON's.
 */
export const controlCharacterScreen: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didResolveOperation({ document, request }) {
        const found = inDocument(document) ?? inVariables(request.variables ?? {});
        if (!found) return;
        throw new GraphQLError(
          `${found.where} contains the control character ${found.character}; text may hold tab, line feed and carriage return, no other control character`,
          {
            nodes: found.node,
            extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
          },
        );
      },
    };
  },
};
