import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { Role } from '../../src/access';
import { Insurer } from '../../src/insurers';
import { InsurerSimulator, type SimBehaviour, type SimOptions } from '../../src/insurer-sim/insurer-sim';
import { createClient, type Credentials, type Gateway } from './gateway';

export interface SimulatedInsurers {
  simulator: InsurerSimulator;
  insurers: Insurer[];
  slugs: string[];
  /** Every request the simulator's server received, in order: what the gateway sent, headers included. */
  received: { method: string; path: string; headers: IncomingHttpHeaders }[];
  /** The simulator stops answering (connections refused) until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The reference insurer system as a separate HTTP server on loopback, hosting one insurer per entry,
 * each registered at the gateway with its own API client for callbacks.
 */
export async function startSimulatedInsurers(
  gateway: Gateway | { url: string; em: Gateway['em'] },
  entries: { name: string; pricingFactor?: number; behaviour?: SimBehaviour; currency?: string }[],
  options: Partial<SimOptions> = {},
): Promise<SimulatedInsurers> {
  // The server listens before the simulator exists: the insurers it is made for are registered with the server's port.
  const handler: { app?: Express } = {};
  const received: SimulatedInsurers['received'] = [];
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    return handler.app!(req, res);
  };
  let server: Server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const em = gateway.em();
  const slugs = entries.map((entry) => entry.name.toLowerCase().replace(/\W+/g, '-'));
  const insurers = entries.map((entry, i) =>
    em.create(Insurer, { name: entry.name, quoteApiUrl: `http://127.0.0.1:${port}/insurers/${slugs[i]}`, createdAt: new Date() }),
  );
  await em.flush();
  const credentials: Credentials[] = [];
  for (const insurer of insurers) credentials.push(await createClient(gateway as Gateway, Role.INSURER, { insurerId: insurer.id }));
  const simulator = new InsurerSimulator({
    gatewayUrl: gateway.url,
    quoteDelayMs: 20,
    slowMs: 1500,
    ...options,
    insurers: entries.map((entry, i) => ({
      slug: slugs[i],
      ...credentials[i],
      behaviour: entry.behaviour,
      pricingFactor: entry.pricingFactor,
      currency: entry.currency,
    })),
  });
  handler.app = simulator.app;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    simulator,
    insurers,
    slugs,
    received,
    down: close,
    up: async () => {
      server = createServer(serve);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close: async () => {
      await simulator.close();
      if (server.listening) await close();
    },
  };
}

/** Polls until `check` returns a value, or fails with the last value seen. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const value = await check();
    if (value) return value;
    last = value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
