import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';

/** The Content-Security-Policy of a page: everything from this gateway, a script only by the response's nonce. */
const pageCsp = (nonce: string): string =>
  [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');

/** The nonce `pageHeaders` made for this response. */
export const nonceOf = (res: Response): string => res.locals.pageNonce as string;

/**
 * Every page's headers: a policy with a nonce of its own per response, never cached or kept (the token is in the
 * URL and the answers are personal), and no Referer to anywhere (the URL is a credential).
 */
export const pageHeaders: RequestHandler = (_req, res, next) => {
  const nonce = randomBytes(16).toString('base64');
  res.locals.pageNonce = nonce;
  res.setHeader('Content-Security-Policy', pageCsp(nonce));
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
  next();
};

/**
 * Whether a POST comes from the page itself, as far as the browser says: `Sec-Fetch-Site` (same-origin, or none for a
 * form the user sent by hand) and `Origin` (this gateway's), each checked where present. The form token is the check
 * that always holds; this one refuses a cross-site form before its body is read.
 */
export function fromOwnPage(req: Request, publicOrigin: string | null): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  // A page served with `Referrer-Policy: no-referrer` has its forms sent with `Origin: null` (Chromium): the form token
  // and Sec-Fetch-Site decide then.
  if (typeof origin !== 'string' || origin === 'null') return true;
  const own = publicOrigin ?? `${req.protocol}://${req.get('host')}`;
  return origin === own;
}
