import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { QuoteDispatchConfig } from '../platform/config';
import type { Insurer } from '../insurers/insurer.entity';

/** Answers larger than this are not a quote any insurer sends; reading stops (and the connection closes) there. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** The longest Retry-After the gateway honours; beyond it the backoff schedule applies. */
const MAX_RETRY_AFTER_MS = 3_600_000;
const MAX_DETAIL = 1000;

/**
 * What brokers and insurers may read about a failed call: a fixed vocabulary. The detail (insurer text,
 * socket errors, database errors) goes to the logs and to internal users only.
 */
export const Reason = {
  timedOut: 'insurer timed out',
  unreachable: 'insurer unreachable',
  answered: (status: number) => `insurer answered ${status}`,
  tooLarge: 'insurer answer too large',
  invalidAcknowledgement: 'insurer sent an invalid acknowledgement',
  invalidQuote: 'insurer sent an invalid quote',
  notAllowed: 'insurer address not allowed',
  internal: 'internal error',
  tenderClosed: 'tender closed',
} as const;

/** Control characters (NUL above all: PostgreSQL text cannot hold it) are shown escaped, and the text is cut. */
export function sanitise(text: string, max = MAX_DETAIL): string {
  // eslint-disable-next-line no-control-regex
  const escaped = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD').slice(0, max);
}

/** A failed call to an insurer system: `retryable` faults are tried again later, the others end the request. */
export class PartnerError extends Error {
  constructor(
    /** One of `Reason`: shown to brokers and insurers. */
    readonly reason: string,
    /** For logs and internal users. */
    readonly detail: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(`${reason}: ${detail}`);
    this.name = 'PartnerError';
  }
}

function parseRetryAfter(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const ms = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

/** Exponential backoff with full jitter; a longer Retry-After from the insurer wins. */
export function retryDelay(config: Pick<QuoteDispatchConfig, 'backoffBaseMs' | 'backoffMaxMs'>, attempt: number, retryAfterMs?: number, random = Math.random): number {
  const ceiling = Math.min(config.backoffMaxMs, config.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.round(ceiling * random());
  return Math.max(jittered, retryAfterMs ?? 0);
}

class AddressNotAllowed extends Error {}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/**
 * The one way the gateway calls insurer systems (DESIGN 6): one deadline for the whole exchange (connect,
 * request, headers and body), the body read as a stream up to MAX_RESPONSE_BYTES, no redirects followed,
 * the URL allow-list checked before the call and every resolved address checked before connecting, and
 * failures classified into retryable or final with a public reason.
 */
export class InsurerClient {
  constructor(private readonly config: QuoteDispatchConfig) {}

  /** `POST {insurer_base_url}/quotes`; the answer is returned unvalidated. */
  async requestQuote(insurer: Insurer, body: unknown, idempotencyKey: string): Promise<unknown> {
    return this.json(await this.call(insurer, 'POST', '/quotes', body, { 'idempotency-key': idempotencyKey }), Reason.invalidAcknowledgement);
  }

  /** `GET {insurer_base_url}/quotes/{id}`; the answer is returned unvalidated. */
  async fetchQuote(insurer: Insurer, insurerReference: string): Promise<unknown> {
    return this.json(await this.call(insurer, 'GET', `/quotes/${encodeURIComponent(insurerReference)}`), Reason.invalidQuote);
  }

  private json(answer: Answer, invalid: string): unknown {
    const text = answer.body.toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PartnerError(invalid, `answered ${answer.status} with a body that is not JSON: ${sanitise(text, 200)}`, false);
    }
  }

  private async call(insurer: Insurer, method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<Answer> {
    const target = `${insurer.quoteApiUrl}${path}`;
    const refusal = this.config.urlAllowList.refusal(target);
    if (refusal) throw new PartnerError(Reason.notAllowed, `${sanitise(insurer.quoteApiUrl, 300)}: ${refusal}`, false);
    const answer = await this.exchange(insurer, new URL(target), method, body, extraHeaders).catch((error: unknown) => {
      throw this.classify(error);
    });
    const { status, headers } = answer;
    if (status === 429 || status === 408 || status >= 500) {
      throw new PartnerError(Reason.answered(status), `answered ${status}: ${sanitise(answer.body.toString('utf8'), 200)}`, true, parseRetryAfter(headers['retry-after']));
    }
    if (status >= 300 && status < 400) {
      throw new PartnerError(Reason.answered(status), `redirect to ${sanitise(String(headers.location ?? '(none)'), 300)} not followed`, false);
    }
    if (status < 200 || status >= 300) {
      throw new PartnerError(Reason.answered(status), `answered ${status}: ${sanitise(answer.body.toString('utf8'), 200)}`, false);
    }
    return answer;
  }

  private classify(error: unknown): PartnerError {
    if (error instanceof PartnerError) return error;
    const name = (error as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') return new PartnerError(Reason.timedOut, `no complete answer within ${this.config.timeoutMs} ms`, true);
    if (error instanceof AddressNotAllowed) return new PartnerError(Reason.notAllowed, error.message, false);
    const code = (error as { code?: string }).code;
    return new PartnerError(Reason.unreachable, sanitise(`network error: ${code ?? (error as Error).message}`), true);
  }

  /** Refuses, before connecting, any address the host resolves to that the allow-list forbids. */
  private readonly guardedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const forbidden = addresses.find((entry) => !this.config.urlAllowList.addressAllowed(entry.address));
      if (forbidden) return callback(new AddressNotAllowed(`${sanitise(hostname, 300)} resolves to ${forbidden.address}, which is not allowed`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };

  /** One request under one deadline; the body is read until MAX_RESPONSE_BYTES, then the connection is closed. */
  private exchange(insurer: Insurer, url: URL, method: string, body: unknown, extraHeaders: Record<string, string>): Promise<Answer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string | number> = { accept: 'application/json', ...extraHeaders };
    if (insurer.outboundCredential) headers.authorization = `Bearer ${insurer.outboundCredential}`;
    if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
    const signal = AbortSignal.timeout(this.config.timeoutMs);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Answer>((resolve, reject) => {
      let settled = false;
      const settle = (error: unknown, answer?: Answer) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (answer) resolve(answer);
        else reject(error);
        if (!answer) req.destroy(); // closes the socket: a trickling or endless answer stops here
      };
      const onAbort = () => settle(signal.reason);
      const req = send(url, { method, headers, lookup: this.guardedLookup, agent: false }, (res) => {
        const declared = Number(res.headers['content-length'] ?? 0);
        const tooLarge = () => new PartnerError(Reason.tooLarge, `answer over ${MAX_RESPONSE_BYTES} bytes, reading stopped`, false);
        if (declared > MAX_RESPONSE_BYTES) return settle(tooLarge());
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) settle(tooLarge());
          else chunks.push(chunk);
        });
        res.on('end', () => settle(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', (error) => settle(error));
        res.on('close', () => settle(new Error('connection closed before the answer was complete')));
      });
      // One deadline for the whole exchange: connecting, sending, headers and every byte of the body.
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error) => settle(error));
      req.end(payload);
    });
  }
}
