import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { AccessLink, LinkKind } from './access-link.entity';
import { TOKEN_PATTERN, tokenHashOf, type LinkKeys } from './link-keys';

export interface NewLink {
  kind: LinkKind;
  tenderId: string;
  quoteRequestId?: string | null;
  email?: string | null;
  language?: string | null;
  expiresAt: Date;
  createdBy?: string | null;
}

/** Why a token opens nothing: no such link (404), or one that ended (410). */
type LinkRefusal = 'unknown' | 'expired' | 'revoked';

export type ResolvedLink = { link: AccessLink; token: string } | { refused: LinkRefusal };

/** The path of a link's page under the gateway's origin, by its kind. */
export const LINK_PATHS: Record<LinkKind, string> = {
  [LinkKind.QUESTIONNAIRE]: '/questionnaire',
  [LinkKind.UNDERWRITING]: '/underwriting',
};

/**
 * Capability links: made, found by their token, revoked. The caller's transaction records the link (with the mail
 * that carries it, if any); `now` is the gateway's clock.
 */
export class AccessLinks {
  constructor(private readonly keys: LinkKeys) {}

  /** Records a new link in `em` (flushed by the caller) and answers it with its token. */
  create(em: EntityManager, input: NewLink, now: Date): { link: AccessLink; token: string } {
    const link = em.create(AccessLink, {
      kind: input.kind,
      tenderId: input.tenderId,
      quoteRequestId: input.quoteRequestId ?? null,
      email: input.email ?? null,
      language: input.language ?? null,
      salt: randomBytes(32).toString('base64url'),
      tokenHash: '',
      expiresAt: input.expiresAt,
      createdAt: now,
      createdBy: input.createdBy ?? null,
    });
    const token = this.keys.tokenOf(link);
    link.tokenHash = tokenHashOf(token);
    return { link, token };
  }

  /** The link's token, derived again (never stored). */
  tokenOf(link: AccessLink): string {
    return this.keys.tokenOf(link);
  }

  /** The page's URL: `origin` is PUBLIC_URL or the request's own origin. */
  urlOf(link: AccessLink, origin: string): string {
    return `${origin.replace(/\/+$/, '')}${LINK_PATHS[link.kind]}/${this.keys.tokenOf(link)}`;
  }

  /**
   * The link a token opens, if it is of `kind`, exists, is not revoked and not past its expiry at `now`. A token of
   * another kind is unknown: a questionnaire link opens no quote page.
   */
  async resolve(em: EntityManager, kind: LinkKind, token: string, now: Date): Promise<ResolvedLink> {
    if (!TOKEN_PATTERN.test(token)) return { refused: 'unknown' };
    const link = await em.findOne(AccessLink, { tokenHash: tokenHashOf(token) });
    // The hash found it; the token derived again must be the one given (compared in constant time).
    if (!link || link.kind !== kind || !timingSafeEqual(Buffer.from(this.keys.tokenOf(link)), Buffer.from(token)))
      return { refused: 'unknown' };
    if (link.revokedAt) return { refused: 'revoked' };
    if (link.expiresAt.getTime() <= now.getTime()) return { refused: 'expired' };
    return { link, token };
  }

  /** Ends a link now; a second revocation keeps the first's time. */
  async revoke(em: EntityManager, link: AccessLink, now: Date): Promise<AccessLink> {
    link.revokedAt ??= now;
    await em.flush();
    return link;
  }

  /** Every link of a kind for a tender, newest first. */
  listFor(em: EntityManager, tenderId: string, kind: LinkKind): Promise<AccessLink[]> {
    return em.find(AccessLink, { tenderId, kind }, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  }

  /** The form token a page's form carries for `purpose`. */
  formTokenOf(link: AccessLink, purpose: string): string {
    return this.keys.formTokenOf(link.id, purpose);
  }

  formTokenFits(link: AccessLink, purpose: string, given: unknown): boolean {
    return this.keys.formTokenFits(link.id, purpose, given);
  }
}
