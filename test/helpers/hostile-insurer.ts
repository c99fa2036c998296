import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role } from '../../src/access';
import { Insurer } from '../../src/insurers';
import { createClient, requestToken, type Credentials, type Gateway } from './gateway';

/**
 * What one insurer path of the hostile server does. `healthy` acknowledges, calls back and quotes every requested
 * limit; the others misbehave on purpose, each in one way.
 */
export type Misbehaviour =
  | 'healthy'
  | 'trickle' // 200 and headers at once, then one byte every 250 ms, for ever
  | 'huge' // a chunked answer of 400 MB, written as fast as it is read
  | 'redirect' // 302 to another path of this server
  | 'nul-ack' // an acknowledgement whose id contains NUL
  | 'nul-error' // 400 with NUL bytes in the body
  | 'nul-body' // 200 with a body that is not JSON and contains NUL bytes
  | 'absurd-premium' // a quote with premium 1.7e308
  | 'tiny-premium' // a quote with premium 5e-324 (the smallest positive double)
  | 'sub-cent-premium' // a quote with premium 0.001
  | 'wrong-id' // a quote for another id
  | 'unrequested-option' // the requested options plus one for a limit nobody asked for
  | 'storm' // 503 to everything
  | 'never' // accepts the connection and never answers
  | 'hold'; // the POST waits until the test releases it with an id of its choosing

/** The premiums of the misbehaviours that quote absurd amounts; every other insurer quotes 1000. */
const PREMIUMS: Partial<Record<Misbehaviour, number>> = { 'absurd-premium': 1.7e308, 'tiny-premium': 5e-324, 'sub-cent-premium': 0.001 };

export const HUGE_BYTES = 400 * 1024 * 1024;

interface PathStats {
  posts: number;
  fetches: number;
  callbacks: number;
  /** Bytes of answer bodies written (for `huge` and `trickle`). */
  bytesWritten: number;
  /** Connections the gateway closed before the answer was complete. */
  closedEarly: number;
}

interface Held {
  res: ServerResponse;
  idempotencyKey: string;
}

export interface HostileInsurers {
  url: string;
  insurers: Record<string, Insurer>;
  credentials: Record<string, Credentials>;
  stats(slug: string): PathStats;
  /** Waits for the held POST of a `hold` insurer. */
  held(slug: string): Promise<Held>;
  /** Answers a held POST with the acknowledgement of `id`. */
  release(slug: string, id: string): void;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * One real HTTP server on loopback hosting one insurer per entry at `/insurers/{slug}`, registered at the
 * gateway (with an API client for callbacks), each behaving as its `Misbehaviour` says.
 */
export async function startHostileInsurers(gateway: Gateway, entries: Record<string, Misbehaviour>): Promise<HostileInsurers> {
  const stats = new Map<string, PathStats>();
  const limits = new Map<string, unknown[]>();
  const waiting = new Map<string, (held: Held) => void>();
  const heldPosts = new Map<string, Held>();
  const tokens = new Map<string, string>();
  const open = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  const statsOf = (slug: string) => {
    if (!stats.has(slug)) stats.set(slug, { posts: 0, fetches: 0, callbacks: 0, bytesWritten: 0, closedEarly: 0 });
    return stats.get(slug)!;
  };

  const insurers: Record<string, Insurer> = {};
  const credentials: Record<string, Credentials> = {};
  let url = '';

  async function callBack(slug: string, id: string) {
    if (!tokens.has(slug)) tokens.set(slug, await requestToken(gateway, credentials[slug]));
    const response = await fetch(`${gateway.url}/aggregation-gateway/v1/public/producer-integration/quotes/available`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.get(slug)}` },
      body: JSON.stringify({ quote_request_id: id }),
    });
    if (response.status === 202) statsOf(slug).callbacks++;
  }

  function acknowledge(slug: string, res: ServerResponse, id: string) {
    json(res, 200, { id, status: 'PROCESSING' });
    const timer = setTimeout(() => {
      timers.delete(timer);
      callBack(slug, id).catch(() => undefined);
    }, 20);
    timers.add(timer);
  }

  function endless(slug: string, res: ServerResponse, chunk: Buffer, everyMs: number, total: number) {
    const counters = statsOf(slug);
    res.writeHead(200, { 'content-type': 'application/json' });
    let written = 0;
    let closed = false;
    res.on('close', () => {
      closed = true;
      if (written < total) counters.closedEarly++;
    });
    const write = () => {
      while (!closed && written < total) {
        written += chunk.length;
        counters.bytesWritten += chunk.length;
        const more = res.write(chunk);
        if (everyMs > 0) {
          const timer = setTimeout(() => {
            timers.delete(timer);
            write();
          }, everyMs);
          timers.add(timer);
          return;
        }
        if (!more) return void res.once('drain', write);
      }
      if (!closed) res.end();
    };
    write();
  }

  function quote(behaviour: Misbehaviour, id: string) {
    const requested = (limits.get(id) ?? []) as { insurance_sum: number; deductible: number }[];
    const options = requested.map((limit) => ({ ...limit, premium: PREMIUMS[behaviour] ?? 1000 }));
    if (behaviour === 'unrequested-option') options.push({ insurance_sum: 123, deductible: 0, premium: 5 });
    return { id: behaviour === 'wrong-id' ? `${id}-someone-else` : id, quote_options: options };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    open.add(res);
    res.on('close', () => open.delete(res));
    const match = /^\/insurers\/([\w-]+)\/quotes(?:\/([^/?]+))?$/.exec(req.url ?? '');
    const slug = match?.[1] ?? '';
    const behaviour = entries[slug];
    let body = '';
    for await (const chunk of req) body += chunk;
    if (!match || !behaviour) return json(res, 404, { error: 'no such insurer' });
    const counters = statsOf(slug);
    if (req.method === 'POST' && !match[2]) {
      counters.posts++;
      const key = String(req.headers['idempotency-key']);
      const id = `HX-${key}`;
      limits.set(id, (JSON.parse(body) as { limits: unknown[] }).limits);
      switch (behaviour) {
        case 'trickle':
          return endless(slug, res, Buffer.from(' '), 250, Infinity);
        case 'huge':
          return endless(slug, res, Buffer.alloc(64 * 1024, 0x20), 0, HUGE_BYTES);
        case 'redirect':
          return res.writeHead(302, { location: `${url}/insurers/redirect-target/quotes` }).end();
        case 'nul-ack':
          return json(res, 200, { id: 'HX-\u0000-nul', status: 'PROCESSING' });
        case 'nul-error':
          return res.writeHead(400, { 'content-type': 'text/plain' }).end('bad\u0000request\u0000');
        case 'nul-body':
          return res.writeHead(200, { 'content-type': 'application/json' }).end('not json \u0000 at all');
        case 'storm':
          return res.writeHead(503).end('down\u0000again');
        case 'never':
          return;
        case 'hold': {
          const held = { res, idempotencyKey: key };
          heldPosts.set(slug, held);
          waiting.get(slug)?.(held);
          return;
        }
        default:
          return acknowledge(slug, res, id);
      }
    }
    if (req.method === 'GET' && match[2]) {
      counters.fetches++;
      return json(res, 200, quote(behaviour, decodeURIComponent(match[2])));
    }
    return json(res, 405, { error: 'method not allowed' });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const em = gateway.em();
  for (const slug of Object.keys(entries)) {
    insurers[slug] = em.create(Insurer, { name: `Hostile ${slug}`, quoteApiUrl: `${url}/insurers/${slug}`, createdAt: new Date() });
  }
  await em.flush();
  for (const slug of Object.keys(entries)) credentials[slug] = await createClient(gateway, Role.INSURER, { insurerId: insurers[slug].id });

  return {
    url,
    insurers,
    credentials,
    stats: (slug) => ({ ...statsOf(slug) }),
    held: (slug) => {
      const already = heldPosts.get(slug);
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => waiting.set(slug, resolve));
    },
    release: (slug, id) => {
      const held = heldPosts.get(slug);
      heldPosts.delete(slug);
      if (held) json(held.res, 200, { id, status: 'PROCESSING' });
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
