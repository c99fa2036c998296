import { hkdfSync } from 'node:crypto';

/**
 * A key for one purpose, derived (HKDF-SHA256) from the gateway's JWT secret: the capability links, their pages' form
 * tokens, the mails' unsubscribe tokens and the documents' download links each sign with their own, so a token of one
 * kind never passes for another, and rotating JWT_SECRET invalidates them all with the access tokens.
 */
export function keyFor(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), `tender-exchange ${purpose}`, 32));
}
