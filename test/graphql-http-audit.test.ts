import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { startGateway, tokenFor, type Gateway } from './helpers/gateway';

let gateway: Gateway;
let token: string;

beforeAll(async () => {
  gateway = await startGateway();
  token = await tokenFor(gateway, Role.ANALYST);
});

afterAll(() => gateway?.close());

describe('GraphQL over HTTP compliance', () => {
  it('the graphql-http audit finds no errors (warnings are explained in the README)', async () => {
    const results = await auditServer({
      url: `${gateway.url}/graphql`,
      fetchFn: (input: string | URL | Request, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      },
    });
    const errors = results
      .filter((result) => result.status === 'error')
      .map((result) => `${result.id} ${result.name}: ${'reason' in result ? result.reason : ''}`);
    const warnings = results.filter((result) => result.status === 'warn').map((result) => `${result.id} ${result.name}`);
    console.log(
      `graphql-http audit: ${results.length} checks, ${errors.length} errors, ${warnings.length} warnings\n${warnings.join('\n')}`,
    );
    expect(errors).toEqual([]);
  });
});
