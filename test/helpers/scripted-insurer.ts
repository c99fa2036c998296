import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role } from '../../src/access';
import { Insurer } from '../../src/insurers';
import { createClient, requestToken, type Gateway } from './gateway';

const CALLBACK = '/aggregation-gateway/v1/public/producer-integration/quotes/available';

/**
 * An insurer system whose quotes the test writes: it acknowledges every request at once (ids S-1, S-2, ...), calls back
 * when the test says so, and answers `GET /quotes/{id}` with whatever the test queued for that id (spec 2.5 and its
 * optional terms, valid or not). For the terms' edge cases the simulator, a well-behaved reference, does not send.
 */
export interface ScriptedInsurer {
  insurer: Insurer;
  /** The ids acknowledged so far, in order. */
  ids(): string[];
  /** What `GET /quotes/{id}` answers from now on (its `id` is filled in unless given). */
  answer(id: string, body: Record<string, unknown>): void;
  /** Posts the callback for `id` with the insurer's own token; answers the gateway's status. */
  callBack(id: string): Promise<number>;
  /** `answer` and `callBack` in one. */
  quote(id: string, body: Record<string, unknown>): Promise<number>;
  close(): Promise<void>;
}

export async function startScriptedInsurer(gateway: Gateway, name = 'Scripted Insurance'): Promise<ScriptedInsurer> {
  const answers = new Map<string, Record<string, unknown>>();
  const ids: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/quotes') {
        const id = `S-${ids.length + 1}`;
        ids.push(id);
        res.end(JSON.stringify({ id, status: 'PROCESSING' }));
        return;
      }
      const match = /^\/quotes\/(.+)$/.exec(req.url ?? '');
      const body = match ? answers.get(decodeURIComponent(match[1])) : undefined;
      if (req.method === 'GET' && match && body) res.end(JSON.stringify({ id: decodeURIComponent(match[1]), ...body }));
      else res.writeHead(404).end('{"error":"unknown"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const em = gateway.em();
  const insurer = em.create(Insurer, { name, quoteApiUrl: `http://127.0.0.1:${port}`, createdAt: new Date() });
  await em.flush();
  const token = await requestToken(gateway, await createClient(gateway, Role.INSURER, { insurerId: insurer.id }));
  const callBack = async (id: string) =>
    (
      await fetch(`${gateway.url}${CALLBACK}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ quote_request_id: id }),
      })
    ).status;
  return {
    insurer,
    ids: () => [...ids],
    answer: (id, body) => answers.set(id, body),
    callBack,
    quote: (id, body) => {
      answers.set(id, body);
      return callBack(id);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
