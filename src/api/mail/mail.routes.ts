import type { MikroORM } from '@mikro-orm/core';
import express, { Router, type Request, type Response } from 'express';
import type { Clock } from '../../platform/tasks/clock';
import {
  DEV_MAILS_KEPT,
  UNSUBSCRIBE_PATH,
  devMailList,
  devMailPage,
  unsubscribeFrom,
  unsubscribePage,
  type DevMailbox,
  type UnsubscribeTokens,
} from '../../mail';

/** The pages' policy: no script at all, styles and images none, forms only back to the gateway, never framed. */
const PAGE_CSP = "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/** The development mail list: it frames the mail's own HTML route (sandboxed), nothing else. */
const DEV_CSP = "default-src 'none'; frame-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";
/** A mail's HTML as sent: its inline styles, nothing it could load or run; shown only inside the list's frame. */
const MAIL_HTML_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'; sandbox; frame-ancestors 'self'";

const sendPage = (res: Response, status: number, csp: string, html: string) => {
  res.status(status).setHeader('Content-Security-Policy', csp).setHeader('Cache-Control', 'no-store').type('html').send(html);
};

/** German unless the browser prefers English. */
const languageOf = (req: Request): 'de' | 'en' => (req.acceptsLanguages('de', 'en') === 'en' ? 'en' : 'de');

/** RFC 8058's body, form-encoded or multipart: `List-Unsubscribe=One-Click`. */
const isOneClick = (body: unknown): boolean =>
  typeof body === 'string' &&
  (/(^|&)List-Unsubscribe=One-Click(&|$)/.test(body.trim()) || /name="List-Unsubscribe"\r?\n\r?\nOne-Click/.test(body));

/**
 * A mail's one-click unsubscribe (RFC 8058), no login: `POST /mail/unsubscribe/{token}` with the body
 * `List-Unsubscribe=One-Click` unsubscribes the token's address from its kind and answers 200; `GET` shows a page
 * with one button that makes that POST. A token not made by this gateway is 404.
 */
export function unsubscribeRoutes(orm: MikroORM, tokens: UnsubscribeTokens, clock: Clock): Router {
  const router = Router();
  router.get(`${UNSUBSCRIBE_PATH}/:token`, (req, res) => {
    const found = tokens.verify(String(req.params.token));
    const language = languageOf(req);
    if (!found) return sendPage(res, 404, PAGE_CSP, unsubscribePage(language, 'invalid'));
    return sendPage(res, 200, PAGE_CSP, unsubscribePage(language, 'ask', found.kind));
  });
  router.post(`${UNSUBSCRIBE_PATH}/:token`, express.text({ type: () => true, limit: '2kb' }), async (req, res) => {
    const found = tokens.verify(String(req.params.token));
    const language = languageOf(req);
    if (!found) return sendPage(res, 404, PAGE_CSP, unsubscribePage(language, 'invalid'));
    if (!isOneClick(req.body)) return sendPage(res, 400, PAGE_CSP, unsubscribePage(language, 'ask', found.kind));
    await unsubscribeFrom(orm.em.fork(), found.email, found.kind, clock.now());
    return sendPage(res, 200, PAGE_CSP, unsubscribePage(language, 'done', found.kind));
  });
  return router;
}

/** `/dev/mail`: the development mailbox's mails (mounted only while it runs, so 404 everywhere else). */
export function devMailRoutes(mailbox: DevMailbox): Router {
  const router = Router();
  router.get('/dev/mail', (_req, res) => sendPage(res, 200, DEV_CSP, devMailList(mailbox.list(), DEV_MAILS_KEPT)));
  router.get('/dev/mail/:id', (req, res, next) => {
    const mail = mailbox.find(String(req.params.id));
    if (!mail) return next();
    return sendPage(res, 200, DEV_CSP, devMailPage(mail));
  });
  router.get('/dev/mail/:id/html', (req, res, next) => {
    const mail = mailbox.find(String(req.params.id));
    if (!mail?.html) return next();
    res.setHeader('X-Frame-Options', 'SAMEORIGIN');
    return sendPage(res, 200, MAIL_HTML_CSP, mail.html);
  });
  return router;
}
