import { createHash, randomUUID } from 'node:crypto';
import express, { type Express, type Request, type Response } from 'express';
import { Webhook } from 'standardwebhooks';

/** The gateway's quote-available callback (spec 4.5): the simulator knows the contract, not the gateway's code. */
export const CALLBACK_PATH = '/aggregation-gateway/v1/public/producer-integration/quotes/available';

/** Half a cent away from zero, as the gateway rounds premiums (an insurer system's own choice; kept equal). */
const roundCents = (amount: number): number => (Math.sign(amount) * Math.round(Math.abs(amount) * 100 + 1e-9)) / 100;

/**
 * How a simulated insurer answers a quotation request:
 * quote (default), decline (no options), slow (acknowledges after `slowMs`), slow-fetch (serves the quote's first
 * fetch after `slowMs`), fail (503), timeout (never answers),
 * malformed (an acknowledgement without id), malformed-quote (a quote with unusable options),
 * early-callback (calls back before acknowledging), callback-twice (calls back two times), silent (the quote is ready
 * at once but the simulator never calls back: the integrator, or the benchmark, sends the callback).
 * The optional quote terms (docs/quotation-terms.md): quote-terms (a quote valid for `validityMs`, in the
 * insurer's `currency`, each limit offered twice: cheaper with a pre-bind subjectivity, and without), decline-reason (a
 * decline with the underwriter's reason), refer (a referral with a reason, then a second callback and a quote with terms).
 * quote-document: a quote that lists its quote slip (`documents`, docs/quotation-dispatch.md, "Quote documents"), a small PDF the simulator serves
 * itself at `{base}/quotes/{id}/slip.pdf`, with its SHA-256 in the quote.
 */
export const SIM_BEHAVIOURS = [
  'quote',
  'decline',
  'slow',
  'slow-fetch',
  'fail',
  'timeout',
  'malformed',
  'malformed-quote',
  'early-callback',
  'callback-twice',
  'silent',
  'quote-terms',
  'decline-reason',
  'refer',
  'quote-document',
] as const;
export type SimBehaviour = (typeof SIM_BEHAVIOURS)[number];

const isSimBehaviour = (value: unknown): value is SimBehaviour => (SIM_BEHAVIOURS as readonly unknown[]).includes(value);

export interface SimInsurerOptions {
  /** Path segment: the insurer's base URL is `{sim}/insurers/{slug}`. */
  slug: string;
  /** The insurer's API client at the gateway, for its callbacks. */
  appId: string;
  secret: string;
  behaviour?: SimBehaviour;
  /** Multiplies the premium rate: insurers differ in price. */
  pricingFactor?: number;
  /** The currency of its `quote-terms` quotes (ISO 4217); EUR unless set. */
  currency?: string;
  /** The signing secret of its webhook endpoint at the gateway (`whsec_...`): webhooks are verified with it. */
  webhookSecret?: string;
}

/** A tender event the simulator received with a valid signature. */
interface SimWebhook {
  webhookId: string;
  event: { id: string; type: string; occurred_at: string; data: Record<string, string> };
}

export interface SimOptions {
  gatewayUrl: string;
  insurers: SimInsurerOptions[];
  /** Time to compute a quote before calling back, ms. */
  quoteDelayMs?: number;
  /** Delay of the `slow` acknowledgement and of the `slow-fetch` quote's first fetch, ms. */
  slowMs?: number;
  /** How long `quote-terms` quotes are valid, ms (30 days unless set). */
  validityMs?: number;
}

interface Limit {
  insurance_sum: number;
  deductible: number;
}

interface SimQuote {
  id: string;
  limits: Limit[];
  behaviour: SimBehaviour;
  ready: boolean;
  /** The gateway accepted a callback for it. */
  delivered: boolean;
  /** A callback for it is on its way (with its retries): a repeated request must not start a second one. */
  calling: boolean;
  /** A repeated request came while a callback was on its way: if that one gives up, the gateway asked again. */
  callAgain: boolean;
  fetches: number;
  /** A `refer` quote whose referral has been answered: its next answer is the quote. */
  referred?: boolean;
}

interface SimStats {
  /** Every POST /quotes received, retries included. */
  posts: number;
  /** Distinct quotation requests (by Idempotency-Key) that were acknowledged. */
  quotes: number;
  callbacks: number;
  /** Callback attempts the gateway did not accept (or that did not reach it). */
  callbackFailures: number;
  fetches: number;
  /** Webhooks received with a valid signature, and refused (no secret, a bad signature, a stale timestamp). */
  webhooks: number;
  webhookRejections: number;
}

interface SimInsurer extends SimInsurerOptions {
  behaviours: SimBehaviour[];
  quotes: Map<string, SimQuote>;
  byIdempotencyKey: Map<string, string>;
  stats: SimStats;
  token?: { value: string; expiresAt: number };
  webhooks: SimWebhook[];
  /** The risk information of each acknowledged quotation request, oldest first (at most the last 100). */
  riskInformation: Record<string, unknown>[];
}

/** The reference premium: a base fee plus a rate on the sum, discounted for the deductible (at most 50 %). */
function simulatedPremium(limit: Limit, pricingFactor = 1): number {
  const discount = Math.min(0.5, (limit.deductible / limit.insurance_sum) * 5);
  return roundCents(150 + limit.insurance_sum * 0.0025 * pricingFactor * (1 - discount));
}

/** A one-page PDF naming the insurer, the quote and each option's premium: a quote slip, as small as a real one can be. */
function quoteSlip(insurer: SimInsurer, quote: SimQuote): Buffer {
  const escape = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);
  const lines = [
    `Quote slip of ${insurer.slug} (simulated)`,
    `Quote ${quote.id}`,
    ...quote.limits.map(
      (limit) => `Sum ${limit.insurance_sum}, deductible ${limit.deductible}: premium ${simulatedPremium(limit, insurer.pricingFactor)}`,
    ),
  ];
  const text = lines.map((line, index) => `BT /F1 12 Tf 72 ${760 - index * 18} Td (${escape(line)}) Tj ET`).join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(text)} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const offset = Buffer.byteLength(pdf);
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = Buffer.byteLength(pdf);
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function validLimits(body: unknown): Limit[] | undefined {
  const limits = (body as { limits?: unknown })?.limits;
  const risk = (body as { risk_information?: unknown })?.risk_information;
  if (!Array.isArray(limits) || limits.length === 0 || typeof risk !== 'object' || risk === null) return undefined;
  return limits.every(isLimit) ? limits : undefined;
}

function isLimit(value: unknown): value is Limit {
  const limit = value as { insurance_sum?: unknown; deductible?: unknown } | null | undefined;
  return (
    typeof limit?.insurance_sum === 'number' && limit.insurance_sum > 0 && typeof limit?.deductible === 'number' && limit.deductible >= 0
  );
}

/**
 * A reference insurer system (spec 4.4 and 4.5) hosting several insurers, each under `/insurers/{slug}`:
 * integrators use it as a sandbox, the tests as a real peer over loopback.
 */
export class InsurerSimulator {
  readonly app: Express;
  private readonly insurers = new Map<string, SimInsurer>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: SimOptions) {
    for (const insurer of options.insurers) {
      this.insurers.set(insurer.slug, {
        ...insurer,
        behaviours: [],
        quotes: new Map(),
        byIdempotencyKey: new Map(),
        stats: { posts: 0, quotes: 0, callbacks: 0, callbackFailures: 0, fetches: 0, webhooks: 0, webhookRejections: 0 },
        webhooks: [],
        riskInformation: [],
      });
    }
    this.app = this.routes();
  }

  /** The next requests of this insurer behave like this, one behaviour each, then the default again. */
  queueBehaviours(slug: string, behaviours: SimBehaviour[]): void {
    this.insurer(slug).behaviours.push(...behaviours);
  }

  setBehaviour(slug: string, behaviour: SimBehaviour): void {
    this.insurer(slug).behaviour = behaviour;
  }

  stats(slug: string): SimStats {
    return { ...this.insurer(slug).stats };
  }

  /** The secret the gateway showed when the insurer's webhook endpoint was registered (or rotated). */
  setWebhookSecret(slug: string, secret: string): void {
    this.insurer(slug).webhookSecret = secret;
  }

  /** The tender events received with a valid signature, oldest first. */
  webhooks(slug: string): SimWebhook[] {
    return [...this.insurer(slug).webhooks];
  }

  /** The risk information this insurer was sent, one per quotation request, oldest first: what an underwriter reads. */
  riskInformation(slug: string): Record<string, unknown>[] {
    return [...this.insurer(slug).riskInformation];
  }

  /** Stops pending callbacks and revokes the insurers' tokens (spec 4.5 step 6). */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.all(
      [...this.insurers.values()].map(async (insurer) => {
        if (!insurer.token) return;
        await fetch(`${this.options.gatewayUrl}/auth/token-revoke`, {
          method: 'POST',
          headers: { authorization: `Bearer ${insurer.token.value}` },
        }).catch(() => undefined);
      }),
    );
  }

  private insurer(slug: string): SimInsurer {
    const insurer = this.insurers.get(slug);
    if (!insurer) throw new Error(`the simulator hosts no insurer "${slug}"`);
    return insurer;
  }

  private routes(): Express {
    const app = express();
    app.disable('x-powered-by');
    // Webhooks are verified over the exact bytes signed: read raw, before any JSON parsing.
    app.post('/insurers/:slug/webhooks', express.raw({ type: 'application/json', limit: '64kb' }), (req, res) =>
      this.receiveWebhook(req, res),
    );
    app.use(express.json({ limit: '1mb' }));
    app.post('/insurers/:slug/quotes', (req, res) => this.receiveRequest(req, res));
    app.get('/insurers/:slug/quotes/:id', (req, res) => this.serveQuote(req, res));
    app.get('/insurers/:slug/quotes/:id/slip.pdf', (req, res) => this.serveSlip(req, res));
    app.post('/insurers/:slug/_sim/behaviours', (req, res) => {
      const behaviours = (req.body as { behaviours?: unknown })?.behaviours;
      const insurer = this.insurers.get(String(req.params.slug));
      if (!insurer || !Array.isArray(behaviours) || !behaviours.every(isSimBehaviour)) {
        res.status(400).json({ error: `behaviours must be a list of ${SIM_BEHAVIOURS.join(', ')}` });
        return;
      }
      insurer.behaviours.push(...behaviours);
      res.json({ queued: insurer.behaviours });
    });
    app.get('/insurers/:slug/_sim/webhooks', (req, res) => {
      const insurer = this.insurers.get(String(req.params.slug));
      if (!insurer) res.status(404).json({ error: 'unknown insurer' });
      else res.json(insurer.webhooks);
    });
    app.get('/insurers/:slug/_sim/stats', (req, res) => {
      const insurer = this.insurers.get(String(req.params.slug));
      if (!insurer) res.status(404).json({ error: 'unknown insurer' });
      else res.json(insurer.stats);
    });
    app.use((_req: Request, res: Response) => {
      res.status(404).json({ error: 'not found' });
    });
    return app;
  }

  /** A tender event from the gateway, accepted only with a valid Standard Webhooks signature; a repeat is acknowledged again. */
  private receiveWebhook(req: Request, res: Response): void {
    const insurer = this.insurers.get(String(req.params.slug));
    if (!insurer) {
      res.status(404).json({ error: 'unknown insurer' });
      return;
    }
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let event: SimWebhook['event'];
    try {
      if (!insurer.webhookSecret) throw new Error('no webhook secret configured');
      event = new Webhook(insurer.webhookSecret).verify(body, req.headers as Record<string, string>) as SimWebhook['event'];
    } catch (error) {
      insurer.stats.webhookRejections++;
      res.status(401).json({ error: `signature not verified: ${(error as Error).message}` });
      return;
    }
    const webhookId = String(req.headers['webhook-id']);
    if (!insurer.webhooks.some((seen) => seen.webhookId === webhookId)) {
      insurer.stats.webhooks++;
      insurer.webhooks.push({ webhookId, event });
      if (insurer.webhooks.length > 1000) insurer.webhooks.shift();
    }
    res.status(204).end();
  }

  private async receiveRequest(req: Request, res: Response): Promise<void> {
    const insurer = this.insurers.get(String(req.params.slug));
    if (!insurer) {
      res.status(404).json({ error: 'unknown insurer' });
      return;
    }
    insurer.stats.posts++;
    const limits = validLimits(req.body);
    if (!limits) {
      res.status(400).json({ error: 'expected {limits: [{insurance_sum, deductible}], risk_information: {...}}' });
      return;
    }
    const key = req.get('idempotency-key');
    const known = key ? insurer.byIdempotencyKey.get(key) : undefined;
    if (known) {
      // A repeated delivery: same answer; and if the callback never got through, send it again.
      const quote = insurer.quotes.get(known)!;
      if (quote.ready && !quote.delivered) {
        if (quote.calling) quote.callAgain = true;
        else this.later(0, () => this.callBack(insurer, quote));
      }
      res.json({ id: known, status: 'PROCESSING' });
      return;
    }
    const behaviour = insurer.behaviours.shift() ?? insurer.behaviour ?? 'quote';
    switch (behaviour) {
      case 'fail':
        res.status(503).json({ error: 'simulated outage' });
        return;
      case 'timeout':
        return; // never answers; the gateway's timeout ends the call
      case 'malformed':
        res.json({ identifier: 42, state: 'processing' });
        return;
      case 'slow':
        await sleep(this.options.slowMs ?? 2000);
        break;
    }
    const quote: SimQuote = {
      id: `Q-${randomUUID()}`,
      limits,
      behaviour,
      ready: false,
      delivered: false,
      calling: false,
      callAgain: false,
      fetches: 0,
    };
    insurer.quotes.set(quote.id, quote);
    if (key) insurer.byIdempotencyKey.set(key, quote.id);
    insurer.stats.quotes++;
    insurer.riskInformation.push((req.body as { risk_information: Record<string, unknown> }).risk_information);
    if (insurer.riskInformation.length > 100) insurer.riskInformation.shift();
    if (behaviour === 'early-callback') {
      quote.ready = true;
      await this.callBack(insurer, quote);
    } else if (behaviour === 'silent') {
      quote.ready = true;
    } else {
      this.later(this.options.quoteDelayMs ?? 50, async () => {
        quote.ready = true;
        await this.callBack(insurer, quote);
        if (behaviour === 'callback-twice') await this.callBack(insurer, quote);
      });
    }
    res.json({ id: quote.id, status: 'PROCESSING' });
  }

  private async serveQuote(req: Request, res: Response): Promise<void> {
    const insurer = this.insurers.get(String(req.params.slug));
    const quote = insurer?.quotes.get(String(req.params.id));
    if (!insurer || !quote) {
      res.status(404).json({ error: 'unknown quote' });
      return;
    }
    insurer.stats.fetches++;
    quote.fetches++;
    if (!quote.ready) {
      res.status(409).json({ id: quote.id, status: 'PROCESSING' });
      return;
    }
    if (quote.behaviour === 'slow-fetch' && quote.fetches === 1) await sleep(this.options.slowMs ?? 2000);
    if (quote.behaviour === 'malformed-quote') {
      res.json({ id: quote.id, quote_options: [{ insurance_sum: 'a lot', deductible: -1, premium: null }] });
      return;
    }
    if (quote.behaviour === 'decline-reason' || (quote.behaviour === 'refer' && !quote.referred)) {
      const referral = quote.behaviour === 'refer';
      res.json({
        id: quote.id,
        decision: referral ? 'REFERRED' : 'DECLINED',
        reason: referral
          ? 'Referred to an underwriter: the claims history needs a look (simulated)'
          : 'Outside our appetite for this line of business (simulated)',
        quote_options: [],
      });
      if (referral && !quote.referred) {
        quote.referred = true;
        // The underwriter decides, and the insurer system calls back once more for the same id.
        this.later(this.options.quoteDelayMs ?? 50, () => this.callBack(insurer, quote));
      }
      return;
    }
    if (quote.behaviour === 'quote-terms' || quote.behaviour === 'refer') {
      res.json(this.quoteWithTerms(insurer, quote));
      return;
    }
    const options =
      quote.behaviour === 'decline'
        ? []
        : quote.limits.map((limit) => ({ ...limit, premium: simulatedPremium(limit, insurer.pricingFactor) }));
    if (quote.behaviour === 'quote-document') {
      const slip = quoteSlip(insurer, quote);
      const url = `${req.protocol}://${req.get('host') ?? ''}/insurers/${insurer.slug}/quotes/${encodeURIComponent(quote.id)}/slip.pdf`;
      const sha256 = createHash('sha256').update(slip).digest('hex');
      res.json({
        id: quote.id,
        quote_options: options,
        documents: [{ type: 'application/pdf', filename: `quote-slip-${quote.id}.pdf`, url, sha256 }],
      });
      return;
    }
    res.json({ id: quote.id, quote_options: options });
  }

  /** The quote slip a `quote-document` quote lists: the same bytes at every fetch, so its SHA-256 holds. */
  private serveSlip(req: Request, res: Response): void {
    const insurer = this.insurers.get(String(req.params.slug));
    const quote = insurer?.quotes.get(String(req.params.id));
    if (!insurer || !quote || quote.behaviour !== 'quote-document') {
      res.status(404).json({ error: 'unknown quote slip' });
      return;
    }
    res.type('application/pdf').send(quoteSlip(insurer, quote));
  }

  /** A quote with the optional terms: validity, currency, and per limit an offer with a subjectivity and one without. */
  private quoteWithTerms(insurer: SimInsurer, quote: SimQuote): Record<string, unknown> {
    return {
      id: quote.id,
      decision: 'QUOTED',
      valid_until: new Date(Date.now() + (this.options.validityMs ?? 30 * 86_400_000)).toISOString(),
      currency: insurer.currency ?? 'EUR',
      quote_options: quote.limits.flatMap((limit) => {
        const premium = simulatedPremium(limit, insurer.pricingFactor);
        return [
          {
            ...limit,
            premium: roundCents(premium * 0.9),
            subjectivities: [
              { text: 'Multi-factor authentication for all remote access before cover starts', stage: 'PRE_BIND' },
              { text: 'A signed information security questionnaire within 30 days', stage: 'POST_BIND' },
            ],
          },
          { ...limit, premium },
        ];
      }),
    };
  }

  private later(ms: number, work: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      work().catch(() => undefined);
    }, ms);
    this.timers.add(timer);
  }

  private async token(insurer: SimInsurer, renew = false): Promise<string> {
    if (!renew && insurer.token && insurer.token.expiresAt > Date.now() + 30_000) return insurer.token.value;
    const response = await fetch(`${this.options.gatewayUrl}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ app_id: insurer.appId, secret: insurer.secret }),
    });
    if (!response.ok) throw new Error(`token request failed with ${response.status}`);
    const body = (await response.json()) as { access_token: string; expiry: string };
    insurer.token = { value: body.access_token, expiresAt: Date.parse(body.expiry) };
    return body.access_token;
  }

  /** Spec 4.5 with retries: a callback that fails (network, 5xx, expired token) is tried again. */
  private async callBack(insurer: SimInsurer, quote: SimQuote): Promise<void> {
    quote.calling = true;
    try {
      await this.tryCallBack(insurer, quote);
    } finally {
      quote.calling = false;
    }
    // A restarted gateway can ask again while the callbacks still fail (it is not listening yet): answer that request
    // with a callback of its own rather than leave it waiting for one that gave up.
    if (quote.callAgain && !quote.delivered && !this.closed) {
      quote.callAgain = false;
      this.later(0, () => this.callBack(insurer, quote));
    }
  }

  private async tryCallBack(insurer: SimInsurer, quote: SimQuote): Promise<void> {
    for (let attempt = 0; attempt < 6 && !this.closed; attempt++) {
      try {
        const response = await fetch(`${this.options.gatewayUrl}${CALLBACK_PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${await this.token(insurer, attempt > 0)}` },
          body: JSON.stringify({ quote_request_id: quote.id }),
        });
        if (response.status === 202) {
          insurer.stats.callbacks++;
          quote.delivered = true;
          return;
        }
        insurer.stats.callbackFailures++;
        if (response.status < 500 && response.status !== 401) return; // the gateway refused it for good
      } catch {
        insurer.stats.callbackFailures++; // the gateway is unreachable: try again
      }
      await sleep(100 * 2 ** attempt);
    }
  }
}
