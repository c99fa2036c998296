import type { Server } from 'node:http';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { createHttpServer } from '../src/api/http/server';
import { withGateway } from './helpers/scene';

let internal: string;

const scene = withGateway({ per: 'file' });

beforeAll(async () => {
  internal = await scene.token(Role.INTERNAL);
});

/** Opens a raw connection, sends a request line and then one header line every `everyMs`, never ending the headers. */
function trickleHeaders(port: number, everyMs: number): Promise<{ answer: string; afterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let line = 0;
    const timer = setInterval(() => socket.writable && socket.write(`X-Slow-${line++}: ${'a'.repeat(10)}\r\n`), everyMs);
    socket.once('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, afterMs: Date.now() - started });
    });
  });
}

describe('the HTTP server', () => {
  it("the gateway's server gives a client 15 s for its headers and 60 s for the whole request", () => {
    const server = createHttpServer();
    expect(server.headersTimeout).toBe(15_000);
    expect(server.requestTimeout).toBe(60_000);
  });

  // The gateway's app behind a server with the headers timeout shortened: the real 15 s would be a 15 s wait.
  it('a client that sends its headers too slowly gets a 503 problem when its time is up (and a check interval)', async () => {
    const server: Server = createHttpServer(scene.gateway.app.express, { headersMs: 1_500, requestMs: 60_000, checkIntervalMs: 250 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { answer, afterMs } = await trickleHeaders((server.address() as { port: number }).port, 200);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 503 /);
      expect(head).toMatch(/content-type: application\/problem\+json/i);
      expect(JSON.parse(body)).toMatchObject({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        detail: 'The request was not received in time (headers within 1.5 s, the whole request within 60 s)',
      });
      expect(afterMs).toBeGreaterThanOrEqual(1_400);
      expect(afterMs).toBeLessThan(4_000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('Content-Security-Policy on /graphql', () => {
  it("a GraphQL JSON answer carries default-src 'none', GET and POST alike", async () => {
    const post = await fetch(`${scene.gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${internal}` },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(post.status).toBe(200);
    expect(post.headers.get('content-security-policy')).toContain("default-src 'none'");
    const get = await fetch(`${scene.gateway.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { authorization: `Bearer ${internal}`, 'apollo-require-preflight': 'true', accept: 'application/json' },
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-security-policy')).toContain("default-src 'none'");
    const refused = await fetch(`${scene.gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ __typename }"}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it("the Apollo Sandbox page (a browser's GET of /graphql) keeps its own policy, not default-src 'none'", async () => {
    const page = await fetch(`${scene.gateway.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy') ?? '').not.toContain("default-src 'none'");
    expect(await page.text()).toMatch(/<meta http-equiv="Content-Security-Policy"/);
  });
});
