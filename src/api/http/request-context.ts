import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { Request, RequestHandler, Response } from 'express';
import { assertMay, type AccessRecorder, type Operation, type RequestContext, type Viewer } from '../../access';
import { DomainError } from '../../platform/errors/domain-error';
import type { AuthContext, TokenService } from '../../auth';
import { RowBudget } from '../../platform/db/row-budget';
import type { UrlAllowList } from '../../platform/http/url-allow-list';
import type { InsurerChecker, QuoteEventListener } from '../../quotes';
import type { WebhookContext, WebhookPolicy } from '../../webhooks';
import type { TenderChangeListener } from '../../tenders';
import type { DocumentContext, DocumentServices } from '../../documents';
import type { ErasureServices, PrivacyContext } from '../../privacy';
import type { RiskContext, RiskEventListener } from '../../risk';
import type { MessageContext, MessageEventListener } from '../../messages';
import type { Clock } from '../../platform/tasks/clock';
import type { AccessLinks } from '../../links';

/**
 * Why a request's signal aborted: its answer went out (or could no longer), so work done for it is wasted. A
 * domain error, so that a resolver it stops is not logged as a fault; nobody reads its answer.
 */
class RequestEnded extends DomainError {
  constructor() {
    super('SERVICE_UNAVAILABLE', 'The request ended before the operation did');
    this.name = 'RequestEnded';
  }
}

/** The context every resolver and route sees: the widest a feature asks for. */
type GatewayContext = WebhookContext & DocumentContext & PrivacyContext & AuthContext & RiskContext & MessageContext;

export interface ContextDeps {
  orm: MikroORM;
  tokens: TokenService;
  wakeDispatcher: (insurerId?: string) => void;
  /** Rows one operation may read (GRAPHQL_MAX_ROWS). */
  maxRowsPerOperation: number;
  insurerUrls: UrlAllowList;
  /** Who reacts to a tender's status change in its transaction (quotes: cancel a closed tender's requests). */
  tenderChanges: readonly TenderChangeListener[];
  /** Who reacts to quotation events (invitations, received quotes) in their transactions (webhooks). */
  quoteEvents: readonly QuoteEventListener[];
  /** Who reacts to a submitted risk assessment or a published question set (quotes: send what waited; webhooks). */
  riskEvents: readonly RiskEventListener[];
  /** Who hears of a message posted in a clarification thread (webhooks). */
  messageEvents: readonly MessageEventListener[];
  /** Onboarding checks of insurer systems (the checkInsurer mutation). */
  insurerChecks: InsurerChecker;
  /** QUOTE_VALIDITY_ZONE: the zone of a manual quote's `validUntil` given as a date. */
  quoteValidityZone: string;
  /** The URL policy of partners' webhook endpoints. */
  webhooks: WebhookPolicy;
  /** Where documents live, their links and limits (DOCUMENT_*). */
  documents: DocumentServices;
  /** The document store and listeners of an erasure (eraseCustomer). */
  erasure: ErasureServices;
  /** PUBLIC_URL: the gateway's address as clients reach it; null, each request's own origin. */
  publicUrl: string | null;
  /** Where reads of personal data are recorded (ACCESS_LOG). */
  accessLog: AccessRecorder;
  /** The gateway's one clock. */
  clock: Clock;
  /** Capability links (the questionnaire's). */
  links: AccessLinks;
}

/**
 * One per request, for every transport: the EntityManager fork, the viewer of the bearer token (verified,
 * unrevoked, of an existing enabled client; checked at most once however many layers ask, the rate limit first)
 * and the context with its loaders.
 */
class RequestScope {
  private verified?: { viewer: Viewer } | { error: unknown };
  private viewer?: Promise<Viewer>;
  private context?: Promise<GatewayContext>;
  private forked?: EntityManager;
  /** Made when a resolver first asks for the signal: most requests never do, and an abort reason is an Error. */
  private ended?: AbortController;

  constructor(
    private readonly deps: ContextDeps,
    private readonly req: Request,
    private readonly res: Response,
  ) {}

  /** Aborted when the request ends: 'close' follows the answer (REQUEST_TIMEOUT_MS's 503 included) and a client gone alike. */
  get signal(): AbortSignal {
    if (!this.ended) {
      const ended = (this.ended = new AbortController());
      if (this.res.closed) ended.abort(new RequestEnded());
      else this.res.once('close', () => ended.abort(new RequestEnded()));
    }
    return this.ended.signal;
  }

  /**
   * The ORM's global EntityManager, for a statement through its connection alone (MikroORM refuses it entities): a
   * poll answered 304 reads its revision without forking one of its own.
   */
  get sharedEm(): EntityManager {
    return this.deps.orm.em;
  }

  /** This request's own EntityManager fork. */
  get em(): EntityManager {
    this.forked ??= this.deps.orm.em.fork();
    return this.forked;
  }

  /** The bearer token's viewer by signature and lifetime alone (revoking a token needs no more); verified once. */
  verifiedViewer(): Viewer {
    if (!this.verified) {
      try {
        this.verified = { viewer: this.deps.tokens.verifyHeader(this.req.headers.authorization) };
      } catch (error) {
        this.verified = { error };
      }
    }
    if ('error' in this.verified) throw this.verified.error;
    return this.verified.viewer;
  }

  /** The verified viewer whose token and client are in good standing: what every authenticated route needs. */
  authenticatedViewer(): Promise<Viewer> {
    if (!this.viewer) {
      // The standing is in memory; a fork (a new EntityManager) is made only when a client has to be read.
      this.viewer = Promise.resolve().then(() => this.deps.tokens.confirmStanding(() => this.deps.orm.em.fork(), this.verifiedViewer()));
      this.viewer.catch(() => undefined); // whoever asks sees the rejection; an unasked one is no unhandled rejection
    }
    return this.viewer;
  }

  requestContext(): Promise<GatewayContext> {
    this.context ??= this.authenticatedViewer().then((viewer) => this.build(viewer));
    return this.context;
  }

  /**
   * The context of a viewer this request stands for without a bearer token: a page opened by a capability link acts as
   * the party its link names (an underwriter's page as its insurer), through the same operations and rules.
   */
  contextAs(viewer: Viewer): GatewayContext {
    return this.build(viewer);
  }

  private build(viewer: Viewer): GatewayContext {
    const made = new Map<unknown, unknown>();
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below belong to the context object
    const scope = this;
    const context: GatewayContext = {
      // Forked when first used: a poll answered 304 reads its revision without one.
      get em() {
        return scope.em;
      },
      viewer,
      rows: new RowBudget(this.deps.maxRowsPerOperation),
      once: <T>(create: (context: RequestContext) => T): T => {
        if (!made.has(create)) made.set(create, create(context));
        return made.get(create) as T;
      },
      wakeDispatcher: this.deps.wakeDispatcher,
      insurerUrls: this.deps.insurerUrls,
      tenderChanges: this.deps.tenderChanges,
      quoteEvents: this.deps.quoteEvents,
      riskEvents: this.deps.riskEvents,
      messageEvents: this.deps.messageEvents,
      insurerChecks: this.deps.insurerChecks,
      quoteValidityZone: this.deps.quoteValidityZone,
      webhooks: this.deps.webhooks,
      documents: this.deps.documents,
      erasure: this.deps.erasure,
      tokenStanding: this.deps.tokens.standing,
      publicOrigin: this.deps.publicUrl ?? `${this.req.protocol}://${this.req.get('host')}`,
      get signal() {
        return scope.signal;
      },
      accessLog: this.deps.accessLog,
      clock: this.deps.clock,
      links: this.deps.links,
    };
    return context;
  }
}

/** Mounted once, before the rate limits: every later layer takes the request's scope from here. */
export const requestScopes =
  (deps: ContextDeps): RequestHandler =>
  (req, res, next) => {
    res.locals.scope = new RequestScope(deps, req, res);
    next();
  };

/** A route's context once the access policy allows its viewer the operation (FORBIDDEN otherwise). */
export async function authorisedContext(res: Response, operation: Operation): Promise<GatewayContext> {
  const context = await requestScopeOf(res).requestContext();
  assertMay(context.viewer, operation);
  return context;
}

export function requestScopeOf(res: Response): RequestScope {
  const scope = res.locals.scope as RequestScope | undefined;
  if (!scope) throw new Error('requestScopes is not mounted before this route');
  return scope;
}
