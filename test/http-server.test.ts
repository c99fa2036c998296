import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { startGateway, tokenFor, type Gateway } from './helpers/gateway';

let gateway: Gateway;
let internal: string;

beforeAll(async () => {
  gateway = await startGateway();
  internal = await tokenFor(gateway, Role.INTERNAL);
});

afterAll(() => gateway?.close());

/** Opens a raw connection, sends a request line and then one header line every `everyMs`, never ending the headers. */
function trickleHeaders(everyMs: number): Promise<{ answer: string; afterMs: number }> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), '127.0.0.1');
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
  it('a client that sends its headers too slowly gets a 503 problem within 15 s (and a second)', async () => {
    const { answer, afterMs } = await trickleHeaders(1000);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(body)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(afterMs).toBeGreaterThanOrEqual(14_500);
    expect(afterMs).toBeLessThan(17_000);
  }, 30_000);
});

describe('Content-Security-Policy on /graphql', () => {
  it("a GraphQL JSON answer carries default-src 'none', GET and POST alike", async () => {
    const post = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${internal}` },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(post.status).toBe(200);
    expect(post.headers.get('content-security-policy')).toContain("default-src 'none'");
    const get = await fetch(`${gateway.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { authorization: `Bearer ${internal}`, 'apollo-require-preflight': 'true', accept: 'application/json' },
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-security-policy')).toContain("default-src 'none'");
    const refused = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ __typename }"}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it("the Apollo Sandbox page (a browser's GET of /graphql) keeps its own policy, not default-src 'none'", async () => {
    const page = await fetch(`${gateway.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy') ?? '').not.toContain("default-src 'none'");
    expect(await page.text()).toMatch(/<meta http-equiv="Content-Security-Policy"/);
  });
});
