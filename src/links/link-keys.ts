import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { keyFor } from '../platform/derived-key';

/** A token: 32 bytes (an HMAC-SHA256), written as 43 base64url characters. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The keys of capability links, derived (HKDF-SHA256) from the gateway's JWT secret, each for one purpose: the link
 * key makes a link's token from its id and salt, the form key the tokens a page's forms carry against cross-site
 * requests. Rotating JWT_SECRET invalidates every link, as it invalidates every access token.
 */
export class LinkKeys {
  private readonly linkKey: Buffer;
  private readonly formKey: Buffer;

  constructor(secret: string) {
    this.linkKey = keyFor(secret, 'access-link');
    this.formKey = keyFor(secret, 'access-link form');
  }

  /** The link's token: HMAC-SHA256(link key, id ‖ salt), 32 bytes in base64url. */
  tokenOf(link: { id: string; salt: string }): string {
    return createHmac('sha256', this.linkKey).update(`${link.id}\u0000${link.salt}`).digest('base64url');
  }

  /** What a form of the link's page carries for `purpose` (a page's form name): bound to the link, not guessable. */
  formTokenOf(linkId: string, purpose: string): string {
    return createHmac('sha256', this.formKey).update(`${linkId}\u0000${purpose}`).digest('base64url');
  }

  /** Whether `given` is the form token of the link and purpose, compared in constant time. */
  formTokenFits(linkId: string, purpose: string, given: unknown): boolean {
    if (typeof given !== 'string' || !TOKEN_PATTERN.test(given)) return false;
    return timingSafeEqual(Buffer.from(given), Buffer.from(this.formTokenOf(linkId, purpose)));
  }
}

/** What the database keeps of a token: its SHA-256 in base64url (43 characters). */
export const tokenHashOf = (token: string): string => createHash('sha256').update(token).digest('base64url');
