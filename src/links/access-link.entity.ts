import { Entity, Enum, Index, OptionalProps, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { LIMITS } from '../platform/validation/rules';

/** What a capability link opens: the customer's questionnaire, or an underwriter's quote page. */
export enum LinkKind {
  QUESTIONNAIRE = 'QUESTIONNAIRE',
  UNDERWRITING = 'UNDERWRITING',
}

/**
 * A capability link: whoever holds its token opens one page of one tender (and, for an underwriter, one quote
 * request), until it expires or is revoked. The token itself is never stored: it is derived from the id and the salt
 * with the gateway's link key (so a mail recorded in the outbox names the link, not the token), and only its SHA-256
 * is kept, to find the link a request names.
 */
@Entity({ tableName: 'access_link' })
@Index({ name: 'access_link_tender_idx', properties: ['tenderId', 'kind'] })
export class AccessLink {
  [OptionalProps]?: 'createdAt';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Enum({ items: () => LinkKind, type: 'string', length: 16 })
  kind!: LinkKind;

  @Property({ type: 'string', length: 36 })
  tenderId!: string;

  @Property({ type: 'string', length: 36, nullable: true })
  quoteRequestId?: string | null;

  /** Where the link was mailed (personal data: erased with the customer); null when the broker passes it on itself. */
  @Property({ type: 'string', length: LIMITS.email, nullable: true })
  email?: string | null;

  /** The page's language when the request names none (`de`, `en`). */
  @Property({ type: 'string', length: 2, nullable: true })
  language?: string | null;

  /** SHA-256 of the token, base64url: how a request's token finds its link. */
  @Unique({ name: 'access_link_token_hash_unique' })
  @Property({ type: 'string', length: 43 })
  tokenHash!: string;

  /** 32 random bytes, base64url: with the id and the link key, the token. */
  @Property({ type: 'string', length: 43 })
  salt!: string;

  @Property({ type: Date, length: 3 })
  expiresAt!: Date;

  @Property({ type: Date, length: 3, nullable: true })
  revokedAt?: Date | null;

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();

  /** The API client that made it. */
  @Property({ type: 'string', length: 64, nullable: true })
  createdBy?: string | null;
}
