import express, { type Request, type RequestHandler, type Response } from 'express';
import { DomainError } from '../../platform/errors/domain-error';
import { LIMITS } from '../../platform/validation/rules';

/**
 * The OAuth 2.0 forms of the token service (docs/oauth.md): RFC 6749 4.4 client credentials and RFC 7009 revocation,
 * form-encoded, with the client's credentials by HTTP Basic or in the body, and RFC 6749 5.2 error bodies.
 */

const FORM = 'application/x-www-form-urlencoded';
/** The realm of the Basic challenge of an `invalid_client` answer. */
const REALM = 'tender-exchange';

/** Whether the request says it sends a form, body or not (`req.is` answers null without a body). */
export const sendsForm = (req: Request): boolean => (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() === FORM;

/** Form bodies (UTF-8) up to the token request's size; other content types pass on unread. */
export const parseForm: RequestHandler = express.urlencoded({
  extended: false,
  limit: LIMITS.tokenBodyBytes,
  parameterLimit: 20,
  type: FORM,
});

export const sendsBody = (req: Request): boolean =>
  (req.headers['content-length'] ?? '0') !== '0' || req.headers['transfer-encoding'] !== undefined;

/** A form is required: anything else is refused (415) before it is read. */
export const requireForm: RequestHandler = (req, _res, next) => {
  if (sendsBody(req) && !sendsForm(req)) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', `The request body must be ${FORM}`);
  next();
};

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope' | 'unauthorized_client';

/** An RFC 6749 5.2 error: `invalid_client` answers 401 with a Basic challenge, the others 400. */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
}

export function sendOAuthError(res: Response, error: OAuthError): void {
  if (error.code === 'invalid_client') res.status(401).setHeader('WWW-Authenticate', `Basic realm="${REALM}", charset="UTF-8"`);
  else res.status(400);
  res.setHeader('Cache-Control', 'no-store');
  res.json({ error: error.code, error_description: error.description });
}

/** The domain's refusals in OAuth's words (a FORBIDDEN one as the route says); anything else is not OAuth's to answer. */
export function asOAuthError(error: unknown, forbidden: OAuthErrorCode): OAuthError | undefined {
  if (error instanceof OAuthError) return error;
  if (!(error instanceof DomainError)) return undefined;
  if (error.code === 'UNAUTHENTICATED') return new OAuthError('invalid_client', error.message);
  if (error.code === 'FORBIDDEN') return new OAuthError(forbidden, error.message);
  if (error.code === 'BAD_USER_INPUT') return new OAuthError('invalid_request', error.message);
  return undefined;
}

/** A form parameter given once (RFC 6749 3.2: never more than once), or undefined when absent or empty. */
export function formParameter(req: Request, name: string): string | undefined {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `The parameter ${name} is given more than once`);
  if (typeof value !== 'string' || value === '') return undefined;
  if (value.includes('\0')) throw new OAuthError('invalid_request', `The parameter ${name} contains a NUL character`);
  return value;
}

interface ClientCredentials {
  appId: string;
  secret: string;
}

/** RFC 6749 2.3.1: `Basic base64(urlencode(client_id) ":" urlencode(client_secret))`; undefined for other schemes. */
function basicCredentials(req: Request): ClientCredentials | undefined {
  const match = /^basic +([A-Za-z0-9+/]+=*) *$/i.exec(req.headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'The Basic credentials are not client_id:client_secret');
  const formDecode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw new OAuthError('invalid_client', 'The Basic credentials are not form-encoded (RFC 6749 2.3.1)');
    }
  };
  return { appId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

/**
 * The client's credentials by exactly one method (RFC 6749 2.3): HTTP Basic, or `client_id` and `client_secret`
 * in the form. Credentials no client can have (empty, too long, with NUL) are refused before any lookup.
 */
export function clientCredentials(req: Request): ClientCredentials {
  const basic = basicCredentials(req);
  const inBody = { appId: formParameter(req, 'client_id'), secret: formParameter(req, 'client_secret') };
  if (basic && inBody.secret !== undefined)
    throw new OAuthError('invalid_request', 'Client credentials both by HTTP Basic and in the body');
  const credentials = basic ?? inBody;
  const usable = (value: string | undefined) => value && value.length <= LIMITS.clientCredential && !value.includes('\0');
  if (!usable(credentials.appId) || !usable(credentials.secret)) {
    throw new OAuthError('invalid_client', 'Client authentication failed: send client_id and client_secret by HTTP Basic or in the body');
  }
  return credentials as ClientCredentials;
}

/** The client id a request names, as far as it can be one: the failed-login limit counts per address and client. */
export function namedClientId(req: Request): string {
  let named: unknown = (req.body as { app_id?: unknown; client_id?: unknown } | undefined)?.app_id;
  if (sendsForm(req)) {
    try {
      named = basicCredentials(req)?.appId ?? (req.body as { client_id?: unknown } | undefined)?.client_id;
    } catch {
      named = undefined;
    }
  }
  // A NUL has no place in a key either: PostgreSQL refuses it in text (the shared counters' table).
  return typeof named === 'string' && named.length <= LIMITS.clientCredential && !named.includes('\0') ? named : '';
}
