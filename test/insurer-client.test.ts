import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config';
import { InsurerClient, PartnerError, retryDelay } from '../src/quotes/dispatch/insurer-client';
import { TEST_JWT_SECRET } from './helpers/gateway';

const config = loadConfig({
  JWT_SECRET: TEST_JWT_SECRET,
  QUOTE_TIMEOUT_MS: '300',
  QUOTE_BACKOFF_BASE_MS: '100',
  QUOTE_BACKOFF_MAX_MS: '1000',
}).quotes;

/** An insurer system whose answer each test chooses, over real HTTP. */
let answer: (req: IncomingMessage, res: ServerResponse) => void;
let seen: IncomingMessage | undefined;
let server: Server;
let insurer: { quoteApiUrl: string; outboundCredential: string };

beforeAll(async () => {
  server = createServer((req, res) => {
    seen = req;
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  insurer = { quoteApiUrl: `http://127.0.0.1:${port}`, outboundCredential: 'insurer-issued-credential' };
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const client = new InsurerClient(config);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a PartnerError');
    },
    (error: PartnerError) => error,
  );

describe('the insurer client', () => {
  it("sends the quotation request with the Idempotency-Key and the insurer's credential, and returns the JSON answer", async () => {
    answer = (_req, res) => res.setHeader('content-type', 'application/json').end('{"id":"Q1","status":"PROCESSING"}');
    expect(await client.requestQuote(insurer, { limits: [] }, 'key-1')).toEqual({ id: 'Q1', status: 'PROCESSING' });
    expect(seen!.method).toBe('POST');
    expect(seen!.url).toBe('/quotes');
    expect(seen!.headers['idempotency-key']).toBe('key-1');
    expect(seen!.headers.authorization).toBe('Bearer insurer-issued-credential');
  });

  it('classifies 429 and 5xx as retryable and honours Retry-After', async () => {
    answer = (_req, res) => res.writeHead(429, { 'retry-after': '2' }).end();
    const limited = await failure(client.fetchQuote(insurer, 'Q 1'));
    expect(seen!.url).toBe('/quotes/Q%201');
    expect(limited).toMatchObject({ retryable: true, retryAfterMs: 2000 });
    answer = (_req, res) => res.writeHead(502).end('bad gateway');
    expect(await failure(client.fetchQuote(insurer, 'Q1'))).toMatchObject({ retryable: true, reason: 'insurer answered 502' });
  });

  it('classifies other 4xx, non-JSON and oversize answers as final: a public reason, the insurer text only in the detail', async () => {
    answer = (_req, res) => res.writeHead(422).end('limits rejected');
    expect(await failure(client.requestQuote(insurer, {}, 'k'))).toMatchObject({
      retryable: false,
      reason: 'insurer answered 422',
      detail: 'answered 422: limits rejected',
    });
    answer = (_req, res) => res.end('<html>oops</html>');
    expect(await failure(client.requestQuote(insurer, {}, 'k'))).toMatchObject({
      reason: 'insurer sent an invalid acknowledgement',
      detail: expect.stringMatching(/not JSON/),
    });
    answer = (_req, res) => res.end('x'.repeat(2 * 1024 * 1024));
    expect(await failure(client.requestQuote(insurer, {}, 'k'))).toMatchObject({ retryable: false, reason: 'insurer answer too large' });
    answer = (_req, res) => res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    expect(await failure(client.fetchQuote(insurer, 'Q1'))).toMatchObject({ retryable: false, reason: 'insurer answered 301' });
  });

  it('gives up on a silent insurer after the timeout, retryably', async () => {
    answer = () => undefined;
    const started = Date.now();
    const error = await failure(client.fetchQuote(insurer, 'Q1'));
    expect(error).toMatchObject({ retryable: true, reason: 'insurer timed out' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('keeps one deadline over the whole exchange: an answer trickling its body is cut off at the timeout', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).write('{');
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    };
    const started = Date.now();
    expect(await failure(client.fetchQuote(insurer, 'Q1'))).toMatchObject({ retryable: true, reason: 'insurer timed out' });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('backs off exponentially with jitter, capped, and a longer Retry-After wins', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelay(config, attempt, undefined, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect(retryDelay(config, 1, undefined, () => 0.5)).toBe(50);
    expect(retryDelay(config, 1, 5000, () => 1)).toBe(5000);
  });
});
