import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ROLES, Role } from '../../access';
import { keyFor } from '../../platform/derived-key';

/** An upload URL's token: 32 random bytes; only its hash is stored, so the database alone opens no upload. */
export function newUploadToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashOfToken(token) };
}

export const hashOfToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Who a download link was given to: what the access policy's document rule reads of a viewer. */
export interface LinkHolder {
  role: Role;
  insurerId?: string;
  brokerCompanyId?: string;
}

/**
 * Download links (`Document.downloadUrl`, both stores): `<document id>.<expiry ms>.<role>.<party id>.<HMAC>`, signed
 * with a key derived from the gateway's JWT secret. A link names one document, its expiry and whom it was given to
 * (the role and the insurer or broker company), so it opens no other document, nothing after it expired, and, as the
 * gateway checks the document's visibility again when the link is used, nothing its holder may no longer see (a
 * tender closed or lost since, a deleted document).
 */
export class LinkSigner {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = keyFor(secret, 'document link');
  }

  sign(documentId: string, holder: LinkHolder, expiresAt: Date): string {
    const party = holder.role === Role.INSURER ? holder.insurerId : holder.role === Role.BROKER ? holder.brokerCompanyId : '';
    const payload = `${documentId}.${expiresAt.getTime()}.${holder.role}.${party ?? ''}`;
    return `${payload}.${this.mac(payload)}`;
  }

  /** The document a link opens and whom it was given to, or null (malformed, forged, expired). */
  verify(token: string, now = Date.now()): { documentId: string; holder: LinkHolder } | null {
    const match = /^([\w-]{1,64})\.(\d{1,15})\.([a-z]{1,16})\.([\w-]{0,64})\.([\w-]{43})$/.exec(token);
    if (!match) return null;
    const [, documentId, expiry, role, party, mac] = match;
    const expected = Buffer.from(this.mac(`${documentId}.${expiry}.${role}.${party}`));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    if (Number(expiry) <= now || !ROLES.includes(role as Role)) return null;
    const holder: LinkHolder = { role: role as Role };
    if (holder.role === Role.INSURER) holder.insurerId = party;
    if (holder.role === Role.BROKER) holder.brokerCompanyId = party;
    return { documentId, holder };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
