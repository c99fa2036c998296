import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** A revoked JWT by its `jti`; kept until the token would have expired anyway. */
@Entity({ tableName: 'revoked_token' })
export class RevokedToken {
  @PrimaryKey({ type: 'string', length: 64 })
  jti!: string;

  @Property({ type: Date, length: 3, index: true })
  expiresAt!: Date;

  /** Indexed: each instance's reconcile reads the revocations since its last one (auth/token-standing.ts). */
  @Property({ type: Date, length: 3, index: true })
  revokedAt: Date = new Date();
}
