import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** An upload URL's token: 32 random bytes; only its hash is stored, so the database alone opens no upload. */
export function newUploadToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashOfToken(token) };
}

export const hashOfToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The filesystem store's download links: `<document id>.<expiry ms>.<HMAC>`, signed with a key derived from the
 * gateway's JWT secret. A link names one document and its expiry, so it opens no other document and nothing after
 * it expired; the document is looked up again when the link is used, so a deleted one is gone.
 */
export class LinkSigner {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('tender-exchange document links').digest();
  }

  sign(documentId: string, expiresAt: Date): string {
    const payload = `${documentId}.${expiresAt.getTime()}`;
    return `${payload}.${this.mac(payload)}`;
  }

  /** The document a link opens, or null (malformed, forged, expired). */
  verify(token: string, now = Date.now()): string | null {
    const match = /^([\w-]{1,64})\.(\d{1,15})\.([\w-]{43})$/.exec(token);
    if (!match) return null;
    const expected = Buffer.from(this.mac(`${match[1]}.${match[2]}`));
    const given = Buffer.from(match[3]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    return Number(match[2]) > now ? match[1] : null;
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
