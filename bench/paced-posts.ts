import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

interface PacedResult {
  sent: number;
  /** Answers with a status other than `expected`. */
  unexpected: number;
  errors: number;
  /** Client-side latency from the moment each request was due, ms (so a late send counts against it). */
  p50Ms: number;
  p99Ms: number;
  requestsPerSecond: number;
}

/**
 * POSTs `bodies` to `url` at a steady `rate` per second, open loop: request i is sent at start + i / rate whatever
 * the answers before it, over keep-alive connections opened as needed. This is what "n per second" means for
 * partner callbacks. autocannon's `overallRate` is not: it gives each connection a quota per second, which every
 * connection spends at once at the start of each second, so "200/s on 20 connections" arrives as bursts of 20
 * at once.
 */
export async function pacedPosts(
  url: string,
  headers: Record<string, string>,
  bodies: readonly string[],
  rate: number,
  expected: number,
): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  let unexpected = 0;
  let errors = 0;
  const start = performance.now();
  const post = (body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
          res.once('error', reject);
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  await Promise.all(
    bodies.map(async (body, i) => {
      const due = start + (i * 1000) / rate;
      await sleep(Math.max(0, due - performance.now()));
      try {
        if ((await post(body)) !== expected) unexpected += 1;
      } catch {
        errors += 1;
      }
      latencies.push(performance.now() - due);
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (share: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? 0);
  return {
    sent: bodies.length,
    unexpected,
    errors,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    requestsPerSecond: Math.round(bodies.length / elapsed),
  };
}
