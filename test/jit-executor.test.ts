import { getOperationAST, parse } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { JIT_LIMITS, jitGateway } from '../src/api/graphql/jit-executor';
import { gatewaySchema } from '../src/api/graphql/schema';

let schema: GraphQLSchema;

beforeAll(async () => {
  schema = await gatewaySchema();
});

/** A gateway of its own, and a way to run a document through it as Apollo would hand it over: parsed, validated, named by its hash. */
async function freshGateway() {
  const gateway = jitGateway(schema);
  const { executor } = await gateway.load({ apollo: { key: '', keyHash: '', graphRef: '' } });
  const run = (source: string, hash: string) => {
    const document = parse(source);
    return executor!({
      document,
      source,
      queryHash: hash,
      operationName: null,
      operation: getOperationAST(document)!,
      request: { variables: {} },
      context: {},
    } as never);
  };
  return { gateway, run };
}

/** A selection of `fields` fields: `__typename` under as many aliases. */
const typenames = (fields: number, prefix = 'a') => Array.from({ length: fields }, (_, i) => `${prefix}${i}: __typename`).join(' ');

describe('compiled client documents (graphql-jit)', () => {
  it('answers a document the same before and after it is compiled, at its second use', async () => {
    const { gateway, run } = await freshGateway();
    const first = await run(`{ ${typenames(3)} }`, 'same');
    expect(gateway.kept().documents).toBe(0);
    const second = await run(`{ ${typenames(3)} }`, 'same');
    expect(gateway.kept()).toEqual({ documents: 1, fields: 3 });
    expect(second).toEqual(first);
    expect(first).toEqual({ data: { a0: 'Query', a1: 'Query', a2: 'Query' } });
  });

  it('keeps no more fields than its budget however many distinct documents come, each twice', async () => {
    const { gateway, run } = await freshGateway();
    for (let i = 0; i < (3 * JIT_LIMITS.totalFields) / 400; i++) {
      for (let use = 0; use < 2; use++) expect((await run(`{ ${typenames(400)} }`, `many-${i}`)).data?.a399).toBe('Query');
      expect(gateway.kept().fields).toBeLessThanOrEqual(JIT_LIMITS.totalFields);
    }
    expect(gateway.kept().fields).toBeGreaterThan(JIT_LIMITS.totalFields - 400);
  });

  it('runs a document over the field limit through graphql-js, with the same answer, and keeps none of its fields', async () => {
    const { gateway, run } = await freshGateway();
    const large = `{ ${typenames(JIT_LIMITS.maxFields + 1)} }`;
    for (let use = 0; use < 3; use++) expect((await run(large, 'large')).data?.[`a${JIT_LIMITS.maxFields}`]).toBe('Query');
    expect(gateway.kept()).toEqual({ documents: 1, fields: 0 });
  });

  it('counts the fields of a fragment at every place it is spread', async () => {
    const { gateway, run } = await freshGateway();
    const fragment = `fragment Names on Query { ${typenames(100, 'n')} }`;
    const source = `{ ...Names ... on Query { ...Names } x: __typename } ${fragment}`;
    for (let use = 0; use < 2; use++) expect((await run(source, 'fragments')).data).toMatchObject({ x: 'Query', n99: 'Query' });
    expect(gateway.kept()).toEqual({ documents: 1, fields: 201 });
    // Five spreads and one field more: 501, over the limit, although the document's text holds 101 fields.
    const wide = `{ ...Names ...Names ... on Query { ...Names ...Names } ...Names x: __typename } ${fragment}`;
    for (let use = 0; use < 2; use++) await run(wide, 'wide');
    expect(gateway.kept()).toEqual({ documents: 2, fields: 201 });
  });
});
