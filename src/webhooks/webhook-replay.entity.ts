import { Entity, Index, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { ApiClient } from '../auth/api-client.entity';
import { newId } from '../platform/db/ids';

/**
 * One replay an API client asked for, and how many deliveries it put back: what counts against the client's
 * daily replay volume (WEBHOOK_REPLAY_PER_DAY). Kept a day; the endpoint is named, not referenced, so removing
 * an endpoint gives no volume back.
 */
@Entity({ tableName: 'webhook_replay' })
@Index({ name: 'webhook_replay_client_idx', properties: ['client', 'requestedAt'] })
export class WebhookReplay {
  [OptionalProps]?: 'id' | 'requestedAt';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => ApiClient, deleteRule: 'cascade', index: false })
  client!: ApiClient;

  @Property({ type: 'string', length: 36 })
  endpointId!: string;

  @Property({ type: 'integer' })
  requeued!: number;

  @Property({ type: Date, length: 3 })
  requestedAt: Date = new Date();
}
