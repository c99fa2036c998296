import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PartnerCallFailed, PartnerClient } from '../src/platform/http/partner-client';
import { UrlAllowList } from '../src/platform/http/url-allow-list';

/** A partner system over real HTTP that counts the TCP connections the gateway opens to it. */
let server: Server;
let connections: number;
let answer: (req: IncomingMessage, res: ServerResponse) => void;
let url: string;

beforeEach(async () => {
  connections = 0;
  answer = (_req, res) => res.setHeader('content-type', 'application/json').end('{"ok":true}');
  server = createServer((req, res) => answer(req, res));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = new PartnerClient({
  timeoutMs: 500,
  maxResponseBytes: 1024,
  urlAllowList: UrlAllowList.parse('TEST_URL_ALLOW', '127.0.0.1', true),
});
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: PartnerCallFailed) => error,
  );

describe('connections to a partner', () => {
  it('are kept alive: five calls in a row to one partner open one connection', async () => {
    for (let i = 0; i < 5; i++) {
      const answered = await client.send(`${url}/quotes/${i}`, 'GET', {});
      expect(answered.status).toBe(200);
      expect(answered.body.toString()).toBe('{"ok":true}');
    }
    expect(connections).toBe(1);
  });

  it('are not reused after an answer over the byte cap or past the deadline: the next call opens a new one and succeeds', async () => {
    answer = (_req, res) => res.end('x'.repeat(4096));
    expect((await failure(client.send(`${url}/big`, 'GET', {}))).fault).toBe('tooLarge');
    answer = () => undefined; // never answers
    expect((await failure(client.send(`${url}/slow`, 'GET', {}))).fault).toBe('timedOut');
    answer = (_req, res) => res.end('fine');
    const answered = await client.send(`${url}/after`, 'GET', {});
    expect(answered.body.toString()).toBe('fine');
    expect(connections).toBe(3);
  });

  it('that the partner closed while idle are not used: the next call opens a new one and succeeds', async () => {
    server.keepAliveTimeout = 50;
    await client.send(`${url}/first`, 'GET', {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answered = await client.send(`${url}/second`, 'GET', {});
    expect(answered.status).toBe(200);
    expect(connections).toBe(2);
  });

  it('are never made to a refused address, pooled connections elsewhere or not', async () => {
    await client.send(`${url}/pooled`, 'GET', {});
    const refused = await failure(client.send('http://127.0.0.2:9/quotes', 'GET', {}));
    expect(refused.fault).toBe('notAllowed');
  });
});

describe('connections to a partner whose answer only counts by its status (webhook receivers)', () => {
  it('are kept alive too: the body is dropped and five deliveries share one connection', async () => {
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('received, thank you');
    for (let i = 0; i < 5; i++)
      expect((await client.send(`${url}/hook`, 'POST', {}, Buffer.from('{}'), { statusOnly: true })).status).toBe(200);
    expect(connections).toBe(1);
  });

  it('answer the status at once even when the body trickles, and the gateway hangs up at the deadline', async () => {
    let hungUp: number | undefined;
    answer = (_req, res) => {
      res.writeHead(202, { 'content-type': 'text/plain' });
      const drip = setInterval(() => res.write('.'), 50);
      res.on('close', () => {
        clearInterval(drip);
        hungUp = Date.now();
      });
    };
    const started = Date.now();
    expect((await client.send(`${url}/hook`, 'POST', {}, Buffer.from('{}'), { statusOnly: true })).status).toBe(202);
    expect(Date.now() - started).toBeLessThan(400);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(hungUp! - started).toBeGreaterThanOrEqual(450);
    expect(hungUp! - started).toBeLessThan(1000);
  });

  it('hang up on a body past the byte cap rather than read it', async () => {
    let hungUp = false;
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('x'.repeat(4096));
      res.on('close', () => (hungUp = true)); // never ended by the receiver
    };
    expect((await client.send(`${url}/hook`, 'POST', {}, Buffer.from('{}'), { statusOnly: true })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hungUp).toBe(true);
  });
});
