import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { Logger } from 'pino';
import { ApiClient } from './api-client.entity';
import { RevokedToken } from './revoked-token.entity';
import type { PeriodicTask } from '../platform/tasks/periodic-task';
import { StandingListener, type StandingNotice } from './standing-notices';

/** What a token's standing depends on, per client: whether it is disabled and its current token generation. */
interface ClientStanding {
  disabled: boolean;
  generation: number;
}

/**
 * How far back a reconcile reads revocations before its previous one began: covers the clocks of other instances
 * (revoked_at is theirs) and a revocation committed a moment after the timestamp it carries.
 */
const RECONCILE_OVERLAP_MS = 60_000;

/**
 * The token standing every authenticated request checks, held in memory so the check costs no statement
 * (docs/architecture.md, "Token standing"): the unexpired revoked jtis, and each client's disabled flag and token
 * generation. This process's own revocations and client changes apply at once (the writers call `revoke` and
 * `apply` after their commit); other instances' arrive by PostgreSQL NOTIFY, and a periodic reconcile
 * (TOKEN_STANDING_RECONCILE_MS) catches whatever a lost notification or SQLite (no NOTIFY) leaves out.
 */
export class TokenStanding {
  /** jti → when the token expires (ms): it is forgotten then, since an expired token is refused anyway. */
  private readonly revoked = new Map<string, number>();
  private readonly clients = new Map<string, ClientStanding>();
  /** When the last reconcile began: the next reads revocations from RECONCILE_OVERLAP_MS before it. */
  private reconciledAt = 0;
  private listener?: StandingListener;
  private reconciling?: Promise<void>;

  /**
   * Loads the whole standing (before the server listens: a token is never checked against an empty state), then
   * keeps it current: NOTIFY on PostgreSQL (`databaseUrl` given), and the periodic task of `reconcileTask`.
   */
  async start(orm: MikroORM, options: { logger: Logger; databaseUrl?: string }): Promise<void> {
    await this.reconcile(orm.em.fork(), true);
    if (options.databaseUrl) {
      this.listener = new StandingListener(options.databaseUrl, options.logger, {
        notice: (notice) => this.hear(notice),
        // Notifications sent while the connection was down are lost: read everything again.
        connected: () =>
          void this.reconcileNow(orm, true).catch((error: unknown) =>
            options.logger.warn({ err: error }, 'token standing reconcile failed; the next one tries again'),
          ),
      });
      await this.listener.start();
    }
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
    await this.reconciling?.catch(() => undefined);
  }

  /** The reconcile every TOKEN_STANDING_RECONCILE_MS, on every instance: each holds its own standing. */
  reconcileTask(orm: MikroORM, everyMs: number): PeriodicTask {
    return { name: 'token standing reconcile', everyMs, allInstances: true, run: () => this.reconcileNow(orm) };
  }

  /**
   * Why a token of this client, generation and jti is refused, or null when it stands. Undefined while the token
   * shows this instance is behind (`settled` false): its client unknown (created elsewhere a moment ago), its
   * generation newer, or its client disabled at the token's own generation (disabling moves the generation on, so
   * such a token was issued after an enabling not heard of yet); the caller then `load`s the client and asks again.
   */
  refusal(appId: string, generation: number, jti: string, settled = false): string | null | undefined {
    const client = this.clients.get(appId);
    if (!client) return settled ? 'The API client of this access token no longer exists' : undefined;
    if (this.revoked.has(jti)) return 'The access token has been revoked';
    const behind = generation > client.generation || (client.disabled && generation === client.generation);
    if (behind && !settled) return undefined;
    if (client.disabled) return 'The API client of this access token is disabled';
    if (client.generation !== generation) return "The access token was issued before the client's tokens were revoked; request a new one";
    return null;
  }

  /** Reads one client whose standing this instance may not have heard of yet. */
  async load(em: EntityManager, appId: string): Promise<void> {
    const client = await em.findOne(ApiClient, { appId }, { fields: ['appId', 'disabledAt', 'tokenGeneration'] });
    if (client) this.apply(client.appId, Boolean(client.disabledAt), client.tokenGeneration);
    else this.clients.delete(appId);
  }

  /** A revocation committed in this process or heard of. */
  revoke(jti: string, expiresAt: number): void {
    if (expiresAt > Date.now()) this.revoked.set(jti, expiresAt);
  }

  /**
   * A client's standing as committed. A token generation only grows, so a reading older than one already applied
   * (a reconcile that raced a notification) is ignored; at the same generation the later reading wins.
   */
  apply(appId: string, disabled: boolean, generation: number): void {
    const known = this.clients.get(appId);
    if (known && generation < known.generation) return;
    this.clients.set(appId, { disabled, generation });
  }

  private hear(notice: StandingNotice): void {
    if ('jti' in notice) this.revoke(notice.jti, notice.exp);
    else this.apply(notice.client, notice.disabled, notice.gen);
  }

  /** One reconcile at a time: asked for while one runs, the caller waits for that one. */
  private reconcileNow(orm: MikroORM, full = false): Promise<void> {
    this.reconciling ??= this.reconcile(orm.em.fork(), full).finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  /** Every client, and the revocations since shortly before the last reconcile (all unexpired ones when `full`). */
  private async reconcile(em: EntityManager, full: boolean): Promise<void> {
    const began = Date.now();
    const since = full ? undefined : new Date(this.reconciledAt - RECONCILE_OVERLAP_MS);
    const [clients, revoked] = await Promise.all([
      em.find(ApiClient, {}, { fields: ['appId', 'disabledAt', 'tokenGeneration'] }),
      em.find(
        RevokedToken,
        since ? { revokedAt: { $gte: since }, expiresAt: { $gt: new Date(began) } } : { expiresAt: { $gt: new Date(began) } },
        { fields: ['jti', 'expiresAt'] },
      ),
    ]);
    for (const client of clients) this.apply(client.appId, Boolean(client.disabledAt), client.tokenGeneration);
    const existing = new Set(clients.map((client) => client.appId));
    for (const appId of this.clients.keys()) if (!existing.has(appId)) this.clients.delete(appId);
    for (const token of revoked) this.revoke(token.jti, token.expiresAt.getTime());
    for (const [jti, expiresAt] of this.revoked) if (expiresAt <= began) this.revoked.delete(jti);
    this.reconciledAt = began;
  }
}
