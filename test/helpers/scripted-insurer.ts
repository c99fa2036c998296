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
interface Served {
  status?: number;
  body: Buffer;
  type?: string;
  chunked?: boolean;
  stallAfter?: number;
}

export interface ScriptedInsurer {
  insurer: Insurer;
  /** The ids acknowledged so far, in order. */
  ids(): string[];
  /** What `GET /quotes/{id}` answers from now on (its `id` is filled in unless given). */
  answer(id: string, body: Record<string, unknown>): void;
  /** Posts the callback for `id` with the insurer's own token; answers the gateway's status. */
  callBack(id: string): Promise<number>;
  /** The system's base URL (its quote API URL). */
  url: string;
  /**
   * What `GET {url}{path}` answers (a quote's document): each fetch takes the next answer, the last one repeats. A
   * `chunked` answer has no Content-Length; a `stallAfter` answer sends that many bytes of its body and then nothing more.
   */
  serve(path: string, ...answers: Served[]): void;
  /** `answer` and `callBack` in one. */
  quote(id: string, body: Record<string, unknown>): Promise<number>;
  close(): Promise<void>;
}

export async function startScriptedInsurer(gateway: Gateway, name = 'Scripted Insurance'): Promise<ScriptedInsurer> {
  const answers = new Map<string, Record<string, unknown>>();
  const files = new Map<string, Served[]>();
  const ids: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const file = files.get(req.url ?? '');
      if (req.method === 'GET' && file) {
        const next = file.length > 1 ? file.shift()! : file[0];
        res.writeHead(next.status ?? 200, {
          'content-type': next.type ?? 'application/octet-stream',
          ...(next.chunked ? {} : { 'content-length': next.body.length }),
        });
        if (next.stallAfter === undefined) res.end(next.body);
        else res.write(next.body.subarray(0, next.stallAfter));
        return;
      }
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
    url: `http://127.0.0.1:${port}`,
    serve: (path, ...served) => files.set(path, served),
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
