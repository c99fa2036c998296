import { createHash } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Logger } from 'pino';
import { LINK_PATHS, type AccessLink, type AccessLinks, type LinkKind } from '../../links';
import type { Config } from '../../platform/config';
import { DomainError } from '../../platform/errors/domain-error';
import type { Clock } from '../../platform/tasks/clock';
import { addressKey } from '../http/client-address';
import { rateLimitStore } from '../http/rate-limits';
import { fromOwnPage, nonceOf, pageHeaders } from './page-security';
import { pageLanguage, PAGE_TEXTS, type MessageKind, type PageLanguage, type PageTexts } from './page-texts';
import { sendMessagePage, sendPage, type PageFrame } from './page-views';

/** What every page opened by a link needs from the composition. */
export interface LinkPageDeps {
  config: Config;
  orm: MikroORM;
  clock: Clock;
  links: AccessLinks;
  logger: Logger;
}

/** A form's body: each field's one value (a field given twice is refused before a page sees it). */
export type FormFields = Record<string, string>;

/** One request to a link's page, once its link is found alive (and, for a POST, its form token checked). */
export interface LinkPageRequest {
  req: Request;
  res: Response;
  link: AccessLink;
  /** This request's own EntityManager fork. */
  em: EntityManager;
  /** The gateway's clock, read once for the request. */
  now: Date;
  lang: PageLanguage;
  t: PageTexts;
  /** The page's path with `?lang=` when the request named it: forms post to it, redirects go to it. */
  selfPath: string;
  /** The token the page's forms carry in `_csrf` for `purpose` (bound to the link). */
  formToken(purpose?: string): string;
  /** Sends `view` in the frame (status 200 unless given). */
  render(view: string, data: { title: string } & Record<string, unknown>, options?: { status?: number; script?: string }): void;
  /** Sends one of the frame's message pages (403, 409, …). */
  message(status: number, kind: MessageKind): void;
  /** POST-redirect-GET: 303 to the page, with `query` added (`saved=1`) and an element to scroll to (`hash`). */
  redirect(query?: Record<string, string>, hash?: string): void;
}

export interface LinkPage {
  kind: LinkKind;
  get(page: LinkPageRequest): Promise<void>;
  /** A POST whose form token (`_csrf`, purpose `form` unless the handler checks others) fitted. */
  post(page: LinkPageRequest, form: FormFields): Promise<void>;
}

/** The CSRF field of every form. */
const CSRF_FIELD = '_csrf';
const DEFAULT_PURPOSE = 'form';

/** A form's bytes at most: a question set's answers are at most 64 KiB of JSON; a form says them in more. */
const FORM_LIMIT = '256kb';
const FORM_FIELDS_LIMIT = 2000;

const tokenKey = (token: string) => `link:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`;

/** The rate limits of a link page: per address, and per link from any address. A 429 is a page in the language. */
function pageRateLimits(config: Config, orm: MikroORM): RequestHandler[] {
  const tooMany: RequestHandler = (req, res) => {
    const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
    res.setHeader('Retry-After', String(Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now()) - Date.now()) / 1000))));
    sendMessagePage(res, { lang: pageLanguage(req), nonce: nonceOf(res) }, 429, 'tooMany');
  };
  const common = { windowMs: 60_000, standardHeaders: 'draft-8', legacyHeaders: false, handler: tooMany } as const;
  return [
    rateLimit({
      ...common,
      store: rateLimitStore(config, orm, 'page-rate:', config.rateLimitSyncMs),
      limit: config.pageRateLimitPerMinute,
      identifier: 'page',
      keyGenerator: (req) => `address:${addressKey(req)}`,
    }),
    rateLimit({
      ...common,
      store: rateLimitStore(config, orm, 'page-link-rate:', config.rateLimitSyncMs),
      limit: config.pageLinkRateLimitPerMinute,
      identifier: 'link',
      keyGenerator: (req) => tokenKey(String(req.params.token)),
    }),
  ];
}

/** The body's fields, each a string given once; undefined when the body is no form, a field repeated or not text. */
function formFields(body: unknown): FormFields | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const fields: FormFields = Object.create(null) as FormFields;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string') return undefined;
    fields[name] = value;
  }
  return fields;
}

const langQuery = (req: Request): string => (req.query.lang === 'de' || req.query.lang === 'en' ? `?lang=${req.query.lang}` : '');

/**
 * The routes of one kind of page opened by a link (`/questionnaire/:token`, `/underwriting/:token`): its headers
 * (a nonce'd CSP, no-store, no Referer), the rate limits per address and per link, the link found by its token (404
 * for none, 410 for one revoked or expired), and for a POST the origin check, a urlencoded form of bounded size and
 * field count, and the form token bound to the link (403 without it). GET and POST only.
 */
export function linkPageRoutes(deps: LinkPageDeps, page: LinkPage): Router {
  const router = Router();
  const path = `${LINK_PATHS[page.kind]}/:token`;
  const parseForm = express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: FORM_FIELDS_LIMIT });

  const opened = async (req: Request, res: Response, form?: FormFields): Promise<void> => {
    const em = deps.orm.em.fork();
    const now = deps.clock.now();
    const token = String(req.params.token);
    const resolved = await deps.links.resolve(em, page.kind, token, now);
    const early: PageFrame = { lang: pageLanguage(req), nonce: nonceOf(res) };
    if ('refused' in resolved) {
      const status = resolved.refused === 'unknown' ? 404 : 410;
      sendMessagePage(res, early, status, resolved.refused === 'unknown' ? 'notFound' : resolved.refused);
      return;
    }
    const { link } = resolved;
    const lang = pageLanguage(req, link.language);
    const selfPath = `${LINK_PATHS[page.kind]}/${token}${langQuery(req)}`;
    const frame: PageFrame = { lang, nonce: nonceOf(res), path: `${LINK_PATHS[page.kind]}/${token}` };
    const request: LinkPageRequest = {
      req,
      res,
      link,
      em,
      now,
      lang,
      t: PAGE_TEXTS[lang],
      selfPath,
      formToken: (purpose = DEFAULT_PURPOSE) => deps.links.formTokenOf(link, purpose),
      render: (view, data, options) => sendPage(res, frame, view, data, options),
      message: (status, kind) => sendMessagePage(res, frame, status, kind),
      redirect: (query = {}, hash) => {
        const params = new URLSearchParams(langQuery(req).slice(1));
        for (const [name, value] of Object.entries(query)) params.set(name, value);
        const search = params.toString();
        res.redirect(303, `${LINK_PATHS[page.kind]}/${token}${search ? `?${search}` : ''}${hash ? `#${encodeURIComponent(hash)}` : ''}`);
      },
    };
    if (!form) return page.get(request);
    if (!deps.links.formTokenFits(link, DEFAULT_PURPOSE, form[CSRF_FIELD])) return request.message(403, 'forbidden');
    return page.post(request, form);
  };

  const refuse =
    (status: number, kind: MessageKind): RequestHandler =>
    (req, res) =>
      sendMessagePage(res, { lang: pageLanguage(req), nonce: nonceOf(res) }, status, kind);

  router.use(path, pageHeaders);
  router.get(path, ...pageRateLimits(deps.config, deps.orm), (req, res) => opened(req, res));
  router.post(
    path,
    ...pageRateLimits(deps.config, deps.orm),
    (req, res, next) => (fromOwnPage(req, deps.config.documents.publicUrl) ? next() : refuse(403, 'forbidden')(req, res, next)),
    parseForm,
    (req, res) => {
      const form = req.is('application/x-www-form-urlencoded') ? formFields(req.body) : undefined;
      return form ? opened(req, res, form) : refuse(400, 'badRequest')(req, res, () => undefined);
    },
  );
  router.all(path, (req, res, next) => {
    res.setHeader('Allow', 'GET, HEAD, POST');
    refuse(405, 'methodNotAllowed')(req, res, next);
  });
  // A body too large or with too many fields, or a fault: a page, never the API's problem+json.
  const faults: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: number; type?: string }).status;
    if (status === 413) return refuse(413, 'tooLarge')(req, res, next);
    if (status === 400 || status === 415) return refuse(400, 'badRequest')(req, res, next);
    if (error instanceof DomainError && error.code === 'CONFLICT') return refuse(409, 'conflict')(req, res, next);
    deps.logger.error({ err: error, page: page.kind }, 'a page failed');
    res.status(500).type('text').send('Internal error');
  };
  router.use(path, faults);
  return router;
}
