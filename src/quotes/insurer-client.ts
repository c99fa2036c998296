import type { QuoteDispatchConfig } from '../config';
import type { Insurer } from '../insurers/insurer.entity';

/** Answers larger than this are not a quote any insurer sends; they are refused unread. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** The longest Retry-After the gateway honours; beyond it the backoff schedule applies. */
const MAX_RETRY_AFTER_MS = 3_600_000;

/** A failed call to an insurer system: `retryable` faults are tried again later, the others end the request. */
export class PartnerError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'PartnerError';
  }
}

function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const ms = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

/** Exponential backoff with full jitter; a longer Retry-After from the insurer wins. */
export function retryDelay(config: QuoteDispatchConfig, attempt: number, retryAfterMs?: number, random = Math.random): number {
  const ceiling = Math.min(config.backoffMaxMs, config.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.round(ceiling * random());
  return Math.max(jittered, retryAfterMs ?? 0);
}

async function readBody(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_RESPONSE_BYTES) throw new PartnerError(`answer of ${declared} bytes is too large`, false);
  const text = await response.text();
  if (Buffer.byteLength(text) > MAX_RESPONSE_BYTES) throw new PartnerError('answer is too large', false);
  return text;
}

/** The one way the gateway calls insurer systems (spec 4.4): a timeout per call and classified failures. */
export class InsurerClient {
  constructor(private readonly config: QuoteDispatchConfig) {}

  /** `POST {insurer_base_url}/quotes`; the answer is returned unvalidated. */
  requestQuote(insurer: Insurer, body: unknown, idempotencyKey: string): Promise<unknown> {
    return this.call(insurer, 'POST', '/quotes', body, { 'idempotency-key': idempotencyKey });
  }

  /** `GET {insurer_base_url}/quotes/{id}`; the answer is returned unvalidated. */
  fetchQuote(insurer: Insurer, insurerReference: string): Promise<unknown> {
    return this.call(insurer, 'GET', `/quotes/${encodeURIComponent(insurerReference)}`);
  }

  private async call(insurer: Insurer, method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (insurer.outboundCredential) headers.authorization = `Bearer ${insurer.outboundCredential}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${insurer.quoteApiUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.config.timeoutMs),
        redirect: 'error',
      });
      text = await readBody(response);
    } catch (error) {
      if (error instanceof PartnerError) throw error;
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError') throw new PartnerError(`no answer within ${this.config.timeoutMs} ms`, true);
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new PartnerError(`network error: ${cause?.code ?? cause?.message ?? (error as Error).message}`, true);
    }
    if (response.status === 429 || response.status === 408 || response.status >= 500) {
      throw new PartnerError(`insurer answered ${response.status}`, true, parseRetryAfter(response.headers.get('retry-after')));
    }
    if (response.status < 200 || response.status >= 300) {
      throw new PartnerError(`insurer answered ${response.status}: ${text.slice(0, 200)}`, false);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PartnerError(`insurer answered ${response.status} with a body that is not JSON: ${text.slice(0, 100)}`, false);
    }
  }
}
