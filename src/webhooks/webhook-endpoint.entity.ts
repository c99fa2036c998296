import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { ApiClient } from '../auth/api-client.entity';
import { newId } from '../platform/db/ids';
import { LIMITS } from '../platform/validation/rules';
import type { WebhookEventType } from './webhook-event-type';

/** Where an API client (insurer or broker) wants its tender events, and the secret they are signed with. */
@Entity({ tableName: 'webhook_endpoint' })
export class WebhookEndpoint {
  [OptionalProps]?:
    'id' | 'description' | 'disabledAt' | 'disabledReason' | 'previousSecret' | 'previousSecretUntil' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => ApiClient, deleteRule: 'cascade' })
  owner!: ApiClient;

  @Property({ type: 'string', length: LIMITS.url })
  url!: string;

  @Property({ type: 'json' })
  eventTypes!: WebhookEventType[];

  @Property({ type: 'string', length: LIMITS.name, default: '' })
  description: string = '';

  /** `whsec_` and the base64 key (Standard Webhooks): needed to sign, so kept, never shown again after it is made. */
  @Property({ type: 'string', length: 128, hidden: true })
  secret!: string;

  /** After a rotation, the old secret signs too (a second signature) until then, so receivers can switch over. */
  @Property({ type: 'string', length: 128, hidden: true, nullable: true })
  previousSecret?: string | null;

  @Property({ type: Date, length: 3, nullable: true })
  previousSecretUntil?: Date | null;

  /** A disabled endpoint receives nothing; its pending deliveries wait until it is enabled again. */
  @Property({ type: Date, length: 3, nullable: true })
  disabledAt?: Date | null;

  @Property({ type: 'string', length: LIMITS.name, nullable: true })
  disabledReason?: string | null;

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();

  @Property({ type: Date, length: 3 })
  updatedAt: Date = new Date();
}
