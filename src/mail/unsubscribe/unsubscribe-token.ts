import { createHmac, timingSafeEqual } from 'node:crypto';
import { keyFor } from '../../platform/derived-key';
import { EVENT_KINDS, MailKind } from '../mail-kind';
import { addressKey } from '../preferences/mail-preferences';

/** Where a mail's one-click unsubscribe is (RFC 8058): under the gateway's address, the token last. */
export const UNSUBSCRIBE_PATH = '/mail/unsubscribe';

const KINDS: readonly string[] = [...EVENT_KINDS, MailKind.DIGEST];

/**
 * The stateless token of a mail's unsubscribe link: the kind and the address, and an HMAC-SHA256 over both with a key
 * derived (HKDF) from the gateway's JWT secret for this use alone. Nothing is stored: whoever holds the token (the
 * recipient, from the mail) unsubscribes that address from that kind, and no one can make one for another address
 * without the key. The address is in the token (base64url), which is the recipient's own and logged as <credential>.
 */
export class UnsubscribeTokens {
  private readonly key: Buffer;

  constructor(jwtSecret: string) {
    this.key = keyFor(jwtSecret, 'mail unsubscribe');
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }

  sign(email: string, kind: MailKind): string {
    const payload = Buffer.from(`${kind}\n${addressKey(email)}`).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The address and kind a token was made for; null for anything not made with this key. */
  verify(token: string): { email: string; kind: MailKind } | null {
    const match = /^([A-Za-z0-9_-]{1,800})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match) return null;
    const given = Buffer.from(match[2], 'base64url');
    const expected = this.mac(match[1]);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const [kind, email] = Buffer.from(match[1], 'base64url').toString('utf8').split('\n');
    if (!KINDS.includes(kind) || !email) return null;
    return { email, kind: kind as MailKind };
  }
}
