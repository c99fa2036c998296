import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed payload: `{id, type, occurred_at, data}`. */
  event: { id: string; type: string; occurred_at: string; data: Record<string, string> };
  /** When the request arrived (epoch ms), for latency measurements. */
  receivedAt: number;
}

export interface WebhookReceiver {
  /** Its URL for one path, so one receiver can stand for several endpoints. */
  url(path?: string): string;
  /** Every request received, in order, by path. */
  received(path?: string): ReceivedWebhook[];
  /** How to answer the n-th request (1-based) to a path; 204 by default. */
  answer(respond: (path: string, n: number) => { status: number; headers?: Record<string, string>; delayMs?: number }): void;
  /** Checks a received request's signature with the `standardwebhooks` package, as an integrator would. */
  verify(webhook: ReceivedWebhook, secret: string): unknown;
  close(): Promise<void>;
}

/** A partner's webhook endpoint on loopback: records what arrives, answers as scripted. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const byPath = new Map<string, ReceivedWebhook[]>();
  let respond: (path: string, n: number) => { status: number; headers?: Record<string, string>; delayMs?: number } = () => ({
    status: 204,
  });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const list = byPath.get(path) ?? [];
      list.push({ headers: req.headers, body, event: JSON.parse(body), receivedAt: Date.now() });
      byPath.set(path, list);
      const { status, headers = {}, delayMs = 0 } = respond(path, list.length);
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(status, headers).end();
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hooks') => `http://127.0.0.1:${port}${path}`,
    received: (path = '/hooks') => byPath.get(path) ?? [],
    answer: (fn) => {
      respond = fn;
    },
    verify: (webhook, secret) => new Webhook(secret).verify(webhook.body, webhook.headers as Record<string, string>),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
