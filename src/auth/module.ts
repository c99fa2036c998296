import type { MikroORM } from '@mikro-orm/core';
import type { PeriodicTask } from '../platform/tasks/periodic-task';
import type { TokenService } from './token.service';
import { ApiClientResolver } from './api-client.resolver';
import { ApiClient } from './api-client.entity';
import { RevokedToken } from './revoked-token.entity';

/** What auth adds to the composition (createApp). */
export const authModule = {
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts). */
  resolvers: [ApiClientResolver],
  /** Its entities (the database, src/database.ts). */
  entities: [ApiClient, RevokedToken],
  /** The token standing's reconcile (TOKEN_STANDING_RECONCILE_MS): what a lost notification or SQLite leaves out. */
  tasks(tokens: TokenService, orm: MikroORM, reconcileMs: number): PeriodicTask[] {
    return [tokens.standing.reconcileTask(orm, reconcileMs)];
  },
};
