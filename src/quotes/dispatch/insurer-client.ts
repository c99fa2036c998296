import type { QuoteDispatchConfig } from '../../platform/config';
import {
  PartnerCallFailed,
  PartnerClient,
  parseRetryAfter,
  sanitise,
  type BodyConsumer,
  type PartnerAnswer,
  type PartnerFault,
} from '../../platform/http/partner-client';
import type { Insurer } from '../../insurers';

/** Answers larger than this are not a quote any insurer sends; reading stops (and the connection closes) there. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

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
  invalidDocument: 'insurer sent an invalid quote document',
  /** The quote was stored, its documents not: the insurer's own share of the tender's documents was full. */
  documentsRefused: 'quote documents refused: the insurer holds its most documents on this tender',
  notAllowed: 'insurer address not allowed',
  internal: 'internal error',
  tenderClosed: 'tender closed',
  customerErased: 'customer erased',
  coverOrdered: 'cover ordered',
} as const;

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

/** Exponential backoff with full jitter; a longer Retry-After from the insurer wins. */
export function retryDelay(
  config: Pick<QuoteDispatchConfig, 'backoffBaseMs' | 'backoffMaxMs'>,
  attempt: number,
  retryAfterMs?: number,
  random = Math.random,
): number {
  const ceiling = Math.min(config.backoffMaxMs, config.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.round(ceiling * random());
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** Faults of the exchange itself, in the public vocabulary; whether to try again. */
const FAULTS: Record<PartnerFault, { reason: string; retryable: boolean }> = {
  timedOut: { reason: Reason.timedOut, retryable: true },
  unreachable: { reason: Reason.unreachable, retryable: true },
  tooLarge: { reason: Reason.tooLarge, retryable: false },
  notAllowed: { reason: Reason.notAllowed, retryable: false },
};

/** What a call needs of an insurer: where its quote API is, and the credential it gave us. */
/** An insurer with a system to call (an API insurer: MANUAL ones have no address). */
type InsurerEndpoint = { quoteApiUrl: string; outboundCredential?: Insurer['outboundCredential'] };

/**
 * Insurer systems, through the one partner client (platform/http/partner-client.ts: deadline, byte cap, no
 * redirects, the URL allow-list): the spec's two calls, and what their answers mean.
 */
export class InsurerClient {
  private readonly partner: PartnerClient;
  /** Quote documents: the same policy and deadline, their own byte cap (DOCUMENT_MAX_BYTES), made at the first one. */
  private documents?: PartnerClient;

  constructor(private readonly config: QuoteDispatchConfig) {
    this.partner = new PartnerClient({
      timeoutMs: config.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      urlAllowList: config.urlAllowList,
    });
  }

  /**
   * `POST {insurer_base_url}/quotes`; the answer is returned unvalidated. `signal`: the end of the request the call
   * is made for (an onboarding check); when it aborts, the call stops and the signal's reason is thrown.
   */
  async requestQuote(insurer: InsurerEndpoint, body: unknown, idempotencyKey: string, signal?: AbortSignal): Promise<unknown> {
    return this.json(
      await this.call(insurer, 'POST', '/quotes', body, { 'idempotency-key': idempotencyKey }, signal),
      Reason.invalidAcknowledgement,
    );
  }

  /** `GET {insurer_base_url}/quotes/{id}`; the answer is returned unvalidated. `signal` as for `requestQuote`. */
  async fetchQuote(insurer: InsurerEndpoint, insurerReference: string, signal?: AbortSignal): Promise<unknown> {
    return this.json(
      await this.call(insurer, 'GET', `/quotes/${encodeURIComponent(insurerReference)}`, undefined, {}, signal),
      Reason.invalidQuote,
    );
  }

  /**
   * `GET url` of a document listed in a quote: its body streams to `consume`, at most `maxBytes`, under one deadline
   * (QUOTE_TIMEOUT_MS). The insurer's credential goes along only to its own quote API's origin.
   */
  async fetchDocument(insurer: InsurerEndpoint, url: string, maxBytes: number, consume: BodyConsumer): Promise<void> {
    this.documents ??= new PartnerClient({
      timeoutMs: this.config.timeoutMs,
      maxResponseBytes: maxBytes,
      urlAllowList: this.config.urlAllowList,
    });
    const sameOrigin = URL.canParse(url) && new URL(url).origin === new URL(insurer.quoteApiUrl).origin;
    await this.call(
      { quoteApiUrl: '', outboundCredential: sameOrigin ? insurer.outboundCredential : undefined },
      'GET',
      url,
      undefined,
      { accept: '*/*' },
      undefined,
      { partner: this.documents, consume },
    );
  }

  private json(answer: PartnerAnswer, invalid: string): unknown {
    const text = answer.body.toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PartnerError(invalid, `answered ${answer.status} with a body that is not JSON: ${sanitise(text, 200)}`, false);
    }
  }

  private async call(
    insurer: InsurerEndpoint,
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
    signal?: AbortSignal,
    { partner = this.partner, consume }: { partner?: PartnerClient; consume?: BodyConsumer } = {},
  ): Promise<PartnerAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    if (insurer.outboundCredential) headers.authorization = `Bearer ${insurer.outboundCredential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const answer = await partner
      .send(`${insurer.quoteApiUrl}${path}`, method, headers, body === undefined ? undefined : Buffer.from(JSON.stringify(body)), {
        signal,
        consume,
      })
      .catch((error: unknown) => {
        if (!(error instanceof PartnerCallFailed)) throw error;
        const { reason, retryable } = FAULTS[error.fault];
        throw new PartnerError(reason, error.detail, retryable);
      });
    const { status, headers: answered } = answer;
    if (status === 429 || status === 408 || status >= 500) {
      throw new PartnerError(
        Reason.answered(status),
        `answered ${status}: ${sanitise(answer.body.toString('utf8'), 200)}`,
        true,
        parseRetryAfter(answered['retry-after']),
      );
    }
    if (status >= 300 && status < 400) {
      throw new PartnerError(
        Reason.answered(status),
        `redirect to ${sanitise(String(answered.location ?? '(none)'), 300)} not followed`,
        false,
      );
    }
    if (status < 200 || status >= 300) {
      throw new PartnerError(Reason.answered(status), `answered ${status}: ${sanitise(answer.body.toString('utf8'), 200)}`, false);
    }
    return answer;
  }
}
