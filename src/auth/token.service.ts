import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import jwt from 'jsonwebtoken';
import type { Config } from '../platform/config';
import { DomainError, badInput } from '../platform/errors/domain-error';
import { ApiClient } from './api-client.entity';
import { RevokedToken } from './revoked-token.entity';
import { ROLES, Role, type Viewer } from '../access';
import { verifySecret } from './secret-hash';
import type { Static } from '@sinclair/typebox';
import { TokenRequestBody } from './auth-rules';
import { parseTimestamp } from '../platform/validation/timestamp';
import { parseBody } from '../platform/validation/validate';
import { TokenStanding } from './token-standing';
import { announce } from './standing-notices';
import { setNewest } from '../platform/bounded-map';

const ALGORITHM = 'HS256';
/** Tolerated clock skew between our instances for `iat` in the future. */
const IAT_SKEW_SECONDS = 60;
/** The shortest lifetime a requested `expiry` may give: a token that expires before it can be used is no token. */
const MIN_TOKEN_TTL_SECONDS = 60;
/** `Bearer <token>`; the scheme is case-insensitive (RFC 9110 11.1). */
const BEARER = /^bearer +([A-Za-z0-9_\-.=]+) *$/i;
/**
 * Tokens whose signature and claims were verified, kept by their exact text: a partner sends the same token with every
 * request until it expires, and verifying it again (decoding it twice, an HMAC) was a twentieth of a tender read's CPU.
 * Only verified tokens are kept, so a flood of forged ones costs a verification each and evicts nothing; a kept
 * token's lifetime is still checked at every use, its standing (revocation) checked apart as before.
 */
const VERIFIED_TOKENS_KEPT = 1024;

type TokenRequest = Static<typeof TokenRequestBody>;

/** Spec 2.6's token response, with RFC 6749 5.1's `token_type`, `expires_in` and `scope` beside it. */
interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  /** Seconds from now. */
  expires_in: number;
  expiry: string;
  /** The granted scope: the client's role (docs/oauth.md). */
  scope: Role;
}

interface Claims {
  sub: string;
  role: Role;
  insurer_id?: string;
  broker_company_id?: string;
  /** The client's token generation at issue (ApiClient.tokenGeneration); absent in tokens of generation 0. */
  gen?: number;
  jti: string;
  iat: number;
  exp: number;
}

const unauthenticated = (message: string) => new DomainError('UNAUTHENTICATED', message);

export class TokenService {
  /** A key object made once: given a string, jsonwebtoken first tries (and fails) to parse it as a public key on every call. */
  private readonly key: KeyObject;
  /** Revocations, disabled clients and token generations in memory; `start` loads it before the server listens. */
  readonly standing = new TokenStanding();
  private readonly verified = new Map<string, Viewer>();

  constructor(private readonly config: Config) {
    if (!config.jwtSecret) throw new Error('No JWT secret: set JWT_SECRET, or start through withJwtSecret (auth/jwt-secret.ts)');
    this.key = createSecretKey(Buffer.from(config.jwtSecret));
  }

  /** Validates the body of `POST /auth/token` field by field; unknown fields are refused, not ignored. */
  parseRequest(body: unknown): TokenRequest {
    return parseBody(TokenRequestBody, body, 'The token request');
  }

  private expiryFor(requested: string | undefined, now: number): number {
    if (requested === undefined) return now + this.config.tokenDefaultTtl * 1000;
    const at = parseTimestamp(requested)!.getTime();
    if (at <= now) throw badInput('expiry lies in the past', [{ pointer: '/expiry', message: 'must lie in the future' }]);
    if (at < now + MIN_TOKEN_TTL_SECONDS * 1000) {
      throw badInput(`expiry lies less than ${MIN_TOKEN_TTL_SECONDS} seconds ahead`, [
        { pointer: '/expiry', message: `must lie at least ${MIN_TOKEN_TTL_SECONDS} seconds ahead` },
      ]);
    }
    if (at > now + this.config.tokenMaxTtl * 1000) {
      throw badInput(`expiry lies more than ${this.config.tokenMaxTtl} seconds ahead`, [
        { pointer: '/expiry', message: `must lie at most ${this.config.tokenMaxTtl} seconds ahead` },
      ]);
    }
    return at;
  }

  /**
   * The enabled client with these credentials. One answer for an unknown app id and a wrong secret, after the same
   * scrypt work.
   */
  async authenticateClient(em: EntityManager, appId: string, secret: string): Promise<ApiClient> {
    const client = await em.findOne(ApiClient, { appId });
    const verifiedHash = client?.secretHash;
    if (!(await verifySecret(secret, verifiedHash)) || !client) {
      throw unauthenticated('Unknown app_id or wrong secret');
    }
    // A rotation may have answered while this request waited for its derivation (docs: the old secret fails at once),
    // and a disabling or revoking one may have moved the client on: read it again and accept only its current hash.
    if ((await em.refresh(client))?.secretHash !== verifiedHash) throw unauthenticated('Unknown app_id or wrong secret');
    // What was just read is committed: a token of this generation must not be refused for a notice still on its way.
    this.standing.apply(client.appId, Boolean(client.disabledAt), client.tokenGeneration);
    // Said only to whoever knows the secret.
    if (client.disabledAt) throw unauthenticated('This API client is disabled');
    return client;
  }

  /**
   * A token for the client with these credentials. `scope` (OAuth, space-separated) may only name the client's own
   * role: a token carries exactly its client's role, whatever is asked (FORBIDDEN otherwise).
   */
  async issue(em: EntityManager, request: TokenRequest, scope?: string): Promise<IssuedToken> {
    const now = Date.now();
    const expiresAtMs = this.expiryFor(request.expiry, now);
    const client = await this.authenticateClient(em, request.app_id, request.secret);
    if (scope !== undefined && scope.split(' ').some((name) => name !== String(client.role))) {
      throw new DomainError('FORBIDDEN', `This client's tokens have the scope "${client.role}" only`);
    }
    const exp = Math.floor(expiresAtMs / 1000);
    const claims: Omit<Claims, 'jti' | 'iat'> = { sub: client.appId, role: client.role, exp };
    if (client.tokenGeneration > 0) claims.gen = client.tokenGeneration;
    if (client.insurer) claims.insurer_id = client.insurer.id;
    if (client.brokerCompany) claims.broker_company_id = client.brokerCompany.id;
    const accessToken = jwt.sign(claims, this.key, {
      algorithm: ALGORITHM,
      issuer: this.config.jwtIssuer,
      audience: this.config.jwtAudience,
      jwtid: randomUUID(),
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: exp - Math.floor(now / 1000),
      expiry: new Date(exp * 1000).toISOString(),
      scope: client.role,
    };
  }

  /** Signature, algorithm, issuer, audience, lifetime and claim shapes; not revocation (see `authenticate`). */
  verify(token: string): Viewer {
    const kept = this.verified.get(token);
    if (kept) {
      // As jsonwebtoken decides `exp`: expired from its second on.
      if (Math.floor(Date.now() / 1000) < kept.expiresAt.getTime() / 1000) return kept;
      this.verified.delete(token);
      throw unauthenticated('The access token has expired');
    }
    const viewer = this.verifyAnew(token);
    setNewest(this.verified, token, viewer, VERIFIED_TOKENS_KEPT);
    return viewer;
  }

  private verifyAnew(token: string): Viewer {
    let decoded: unknown;
    try {
      decoded = jwt.verify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: this.config.jwtIssuer,
        audience: this.config.jwtAudience,
      });
    } catch (error) {
      const reason = error instanceof jwt.TokenExpiredError ? 'The access token has expired' : 'The access token is invalid';
      throw unauthenticated(reason);
    }
    const claims = decoded as Partial<Claims>;
    const wellFormed =
      typeof claims.sub === 'string' &&
      typeof claims.jti === 'string' &&
      typeof claims.exp === 'number' &&
      typeof claims.iat === 'number' &&
      ROLES.includes(claims.role as Role) &&
      (claims.gen === undefined || Number.isSafeInteger(claims.gen)) &&
      (claims.role !== Role.INSURER || typeof claims.insurer_id === 'string') &&
      (claims.role !== Role.BROKER || typeof claims.broker_company_id === 'string');
    if (!wellFormed) throw unauthenticated('The access token is invalid');
    if (claims.iat! > Date.now() / 1000 + IAT_SKEW_SECONDS) throw unauthenticated('The access token is issued in the future');
    return {
      appId: claims.sub!,
      role: claims.role!,
      insurerId: claims.insurer_id,
      brokerCompanyId: claims.broker_company_id,
      jti: claims.jti!,
      expiresAt: new Date(claims.exp! * 1000),
      tokenGeneration: claims.gen ?? 0,
    };
  }

  /**
   * The viewer of a verified token (`verifyHeader`), if the token is not revoked, its client exists and is
   * enabled, and the token is of the client's current token generation. `fork` gives the EntityManager to read a
   * client with, when one has to be read.
   */
  async confirmStanding(fork: () => EntityManager, viewer: Viewer): Promise<Viewer> {
    // From memory: every authenticated request asks this (docs/architecture.md, "Token standing"). A token that
    // shows this instance is behind (a client created or enabled elsewhere a moment ago) has its client read once.
    let refusal = this.standing.refusal(viewer.appId, viewer.tokenGeneration, viewer.jti);
    if (refusal === undefined) {
      await this.standing.load(fork(), viewer.appId);
      refusal = this.standing.refusal(viewer.appId, viewer.tokenGeneration, viewer.jti, true);
    }
    if (refusal) throw unauthenticated(refusal);
    return viewer;
  }

  /** Reads `Authorization: Bearer <token>`: the viewer of a token with a valid signature and lifetime. */
  verifyHeader(authorization: string | undefined): Viewer {
    if (!authorization) throw unauthenticated('An access token is required: Authorization: Bearer <token>');
    const match = BEARER.exec(authorization);
    if (!match) throw unauthenticated('The Authorization header must be "Bearer <token>"');
    return this.verify(match[1]);
  }

  /** Idempotent: revoking a revoked token succeeds again. Expired entries are purged on the way. */
  async revoke(em: EntityManager, viewer: Viewer): Promise<void> {
    await em.upsert(
      RevokedToken,
      { jti: viewer.jti, expiresAt: viewer.expiresAt, revokedAt: new Date() },
      {
        onConflictFields: ['jti'],
        onConflictAction: 'ignore',
      },
    );
    // Refused here from now on; the other instances hear of it (NOTIFY) or find it at their next reconcile.
    this.standing.revoke(viewer.jti, viewer.expiresAt.getTime());
    await announce(em, { jti: viewer.jti, exp: viewer.expiresAt.getTime() });
    await em.nativeDelete(RevokedToken, { expiresAt: { $lt: new Date() } });
  }

  /**
   * RFC 7009: revokes `token` for the authenticated `client` that it was issued to. A token that does not verify
   * (malformed, foreign signature, expired) needs no revocation and is ignored, as RFC 7009 2.2 answers it; a
   * valid token of another client is refused (FORBIDDEN).
   */
  async revokeIssuedTo(em: EntityManager, client: ApiClient, token: string): Promise<void> {
    let viewer: Viewer;
    try {
      viewer = this.verify(token);
    } catch {
      return;
    }
    if (viewer.appId !== client.appId) throw new DomainError('FORBIDDEN', 'The token was not issued to this client');
    await this.revoke(em, viewer);
  }
}
