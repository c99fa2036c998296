import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { abortReasonOf } from '../errors/normalize';
import type { UrlAllowList } from './url-allow-list';
import { escapeForbidden } from '../validation/rules';

/** The longest Retry-After the gateway honours; beyond it the caller's own schedule applies. */
const MAX_RETRY_AFTER_MS = 3_600_000;
const MAX_DETAIL = 1000;

/**
 * A partner's text kept safely: what the one text rule refuses (controls, NUL above all, which PostgreSQL text cannot
 * hold; invisible and bidi format characters; separators; private-use and unassigned code points) is shown escaped,
 * a lone surrogate as U+FFFD, and the text is cut (never inside a surrogate pair).
 */
export function sanitise(text: string, max = MAX_DETAIL): string {
  const escaped = escapeForbidden(text);
  if (escaped.length <= max) return escaped;
  const cut = escaped.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** A Retry-After header (seconds or an HTTP date) in milliseconds, at most an hour; undefined when absent or garbage. */
export function parseRetryAfter(header: string | string[] | undefined, now = Date.now()): number | undefined {
  if (typeof header !== 'string' || header.trim() === '') return undefined;
  const ms = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

export interface PartnerAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** Why an exchange with a partner produced no answer. */
export type PartnerFault = 'timedOut' | 'unreachable' | 'tooLarge' | 'notAllowed';

export class PartnerCallFailed extends Error {
  constructor(
    readonly fault: PartnerFault,
    /** For logs and internal users: partner text is sanitised. */
    readonly detail: string,
  ) {
    super(`${fault}: ${detail}`);
    this.name = 'PartnerCallFailed';
  }
}

interface PartnerClientOptions {
  /** The whole exchange: connecting, sending, the headers and every byte of the body. */
  timeoutMs: number;
  /** Reading stops (and the connection closes) beyond this many bytes. */
  maxResponseBytes: number;
  urlAllowList: UrlAllowList;
}

class AddressNotAllowed extends Error {}

/**
 * Takes a successful (2xx) answer's body as a stream, under the call's deadline and byte cap; the call's answer comes
 * once it finished. What it throws of its own (not the exchange's fault) is thrown by the call as it is.
 */
export type BodyConsumer = (body: Readable, headers: IncomingMessage['headers']) => Promise<void>;

/** A consumer's own failure, passed through the call unclassified. */
class ConsumerFailed extends Error {
  constructor(readonly original: unknown) {
    super('the consumer of the answer failed');
  }
}

/**
 * Connections to partners are kept alive and reused, a pool per origin (Node's agents key their pools by host and
 * port): a call to an insurer or a webhook endpoint called a moment ago skips the TCP (and TLS) handshake. A socket
 * joins the pool only after a complete answer; one that failed, timed out, overran the byte cap or was left unread
 * is destroyed. Addresses are checked when a connection is made, so every client has pools of its own: a pooled
 * connection was checked by the allow-list of the client that reuses it, never by another's (the insurer and the
 * webhook allow-lists differ). An idle socket is closed after a few seconds, before the common server keep-alive
 * timeout (Node's 5 s), and unreferenced meanwhile.
 */
const POOL = { keepAlive: true, maxSockets: 32, maxFreeSockets: 8, timeout: 4_000, scheduling: 'lifo' as const };

/**
 * The one way the gateway calls partner systems (DESIGN 6): insurer systems and webhook endpoints. One deadline
 * for the whole exchange, the body read as a stream up to a byte cap, no redirects followed, the URL allow-list
 * checked before the call and every resolved address checked before connecting. What the answer means is the
 * caller's to judge; a missing answer is a `PartnerCallFailed` with its fault.
 */
export class PartnerClient {
  private readonly agents = { 'http:': new HttpAgent(POOL), 'https:': new HttpsAgent(POOL) };

  constructor(private readonly options: PartnerClientOptions) {}

  /**
   * `statusOnly`: the answer's status and headers are all the caller needs: it has them at once, and the body is
   * dropped.
   * `signal`: the caller's own end (the request a resolver calls for): when it aborts, the call stops at once, the
   * connection is closed, and the signal's reason is thrown as it is (it is no fault of the partner's).
   * `consume`: a 2xx answer's body streams to it rather than being collected (a document: never held whole); the
   * answer then has an empty body. Other answers are collected as usual.
   */
  async send(
    target: string,
    method: string,
    headers: Record<string, string>,
    body?: Buffer,
    { statusOnly = false, signal, consume }: { statusOnly?: boolean; signal?: AbortSignal; consume?: BodyConsumer } = {},
  ): Promise<PartnerAnswer> {
    signal?.throwIfAborted();
    const refusal = this.options.urlAllowList.refusal(target);
    if (refusal) throw new PartnerCallFailed('notAllowed', `${sanitise(target, 300)}: ${refusal}`);
    return this.exchange(new URL(target), method, headers, body, { statusOnly, consume }, signal).catch((error: unknown) => {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof ConsumerFailed) throw error.original;
      throw this.classify(error);
    });
  }

  private classify(error: unknown): PartnerCallFailed {
    if (error instanceof PartnerCallFailed) return error;
    const name = (error as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError')
      return new PartnerCallFailed('timedOut', `no complete answer within ${this.options.timeoutMs} ms`);
    if (error instanceof AddressNotAllowed) return new PartnerCallFailed('notAllowed', error.message);
    const code = (error as { code?: string }).code;
    return new PartnerCallFailed('unreachable', sanitise(`network error: ${code ?? (error as Error).message}`));
  }

  /** Refuses, before connecting, any address the host resolves to that the allow-list forbids. */
  private readonly guardedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const forbidden = addresses.find((entry) => !this.options.urlAllowList.addressAllowed(entry.address));
      if (forbidden)
        return callback(new AddressNotAllowed(`${sanitise(hostname, 300)} resolves to ${forbidden.address}, which is not allowed`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };

  /** One request under one deadline; the body is read up to the byte cap, then the connection is closed. */
  private exchange(
    url: URL,
    method: string,
    extraHeaders: Record<string, string>,
    payload: Buffer | undefined,
    { statusOnly, consume }: { statusOnly: boolean; consume?: BodyConsumer },
    callerSignal: AbortSignal | undefined,
  ): Promise<PartnerAnswer> {
    const { timeoutMs, maxResponseBytes } = this.options;
    const headers: Record<string, string | number> = { ...extraHeaders };
    if (payload) headers['content-length'] = payload.length;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = callerSignal ? AbortSignal.any([deadline, callerSignal]) : deadline;
    const https = url.protocol === 'https:';
    const send = https ? httpsRequest : httpRequest;
    return new Promise<PartnerAnswer>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: PartnerAnswer | Error) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (outcome instanceof Error) {
          reject(outcome);
          req.destroy(); // closes the socket: a trickling or endless answer stops here
        } else resolve(outcome);
      };
      const onAbort = () => settle(abortReasonOf(signal));
      const req = send(url, { method, headers, lookup: this.guardedLookup, agent: this.agents[https ? 'https:' : 'http:'] }, (res) => {
        if (statusOnly) {
          settle({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0) });
          // The caller has its answer; the body is read and dropped so the connection can serve the next call, unless
          // it runs past the byte cap or the deadline: then the connection is closed instead.
          const stop = () => req.destroy();
          signal.addEventListener('abort', stop, { once: true });
          res.on('close', () => signal.removeEventListener('abort', stop));
          let dropped = 0;
          res.on('data', (chunk: Buffer) => {
            dropped += chunk.length;
            if (dropped > maxResponseBytes) stop();
          });
          return;
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        const tooLarge = () => new PartnerCallFailed('tooLarge', `answer over ${maxResponseBytes} bytes, reading stopped`);
        if (declared > maxResponseBytes) return settle(tooLarge());
        const status = res.statusCode ?? 0;
        if (consume && status >= 200 && status < 300) {
          let streamed = 0;
          // The exchange's own faults (the cap, a connection lost) are told apart from the consumer's.
          let fault: Error | undefined;
          const capped = new Transform({
            transform(chunk: Buffer, _encoding, callback) {
              streamed += chunk.length;
              if (streamed > maxResponseBytes) callback((fault = tooLarge()));
              else callback(null, chunk);
            },
          });
          pipeline(res, capped).catch((error: unknown) => (fault ??= error as Error));
          consume(capped, res.headers).then(
            () => (fault ? settle(fault) : settle({ status, headers: res.headers, body: Buffer.alloc(0) })),
            (error: unknown) => settle(fault ?? new ConsumerFailed(error)),
          );
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) settle(tooLarge());
          else chunks.push(chunk);
        });
        res.on('end', () => settle({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', (error) => settle(error));
        res.on('close', () => settle(new Error('connection closed before the answer was complete')));
      });
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error) => settle(error));
      req.end(payload);
    });
  }
}
