import { auditServer } from 'graphql-http';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { withGateway } from './helpers/scene';

let token: string;

const scene = withGateway({ per: 'file' });

beforeAll(async () => {
  token = await scene.token(Role.ANALYST);
});

describe('GraphQL over HTTP compliance', () => {
  it('the graphql-http audit finds no errors (warnings are explained in the README)', async () => {
    const results = await auditServer({
      url: `${scene.gateway.url}/graphql`,
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
