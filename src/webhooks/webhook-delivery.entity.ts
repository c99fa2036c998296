import { Entity, Enum, Index, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { WebhookDeliveryStatus, type WebhookEventType } from './webhook-event-type';
import { WebhookEndpoint } from './webhook-endpoint.entity';

/**
 * One event for one endpoint: the outbox row the webhook dispatcher delivers, and its delivery log. The id is
 * derived from the event and the endpoint, so an event is enqueued once per endpoint however often it is
 * reported; it is the `webhook-id` of every attempt, the receiver's key for de-duplication.
 */
@Entity({ tableName: 'webhook_delivery' })
@Index({ name: 'webhook_delivery_due_idx', properties: ['status', 'nextAttemptAt'] })
@Index({ name: 'webhook_delivery_endpoint_idx', properties: ['endpoint', 'createdAt'] })
export class WebhookDelivery {
  [OptionalProps]?: 'status' | 'attempts' | 'createdAt';

  @PrimaryKey({ type: 'string', length: 64 })
  id!: string;

  @ManyToOne({ entity: () => WebhookEndpoint, deleteRule: 'cascade', index: false })
  endpoint!: WebhookEndpoint;

  @Property({ type: 'string', length: 64 })
  eventId!: string;

  @Property({ type: 'string', length: 64 })
  eventType!: WebhookEventType;

  /** The JSON body, exactly the bytes signed and sent. */
  @Property({ type: 'text' })
  payload!: string;

  @Enum({ items: () => WebhookDeliveryStatus, type: 'string', length: 16 })
  status: WebhookDeliveryStatus = WebhookDeliveryStatus.PENDING;

  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: Date, length: 3, nullable: true })
  nextAttemptAt?: Date | null;

  @Property({ type: Date, length: 3, nullable: true })
  lastAttemptAt?: Date | null;

  /** The endpoint's HTTP status at the last attempt; null when it did not answer. */
  @Property({ type: 'integer', nullable: true })
  lastStatusCode?: number | null;

  /** Why the last attempt failed, in our words (the endpoint's body is not kept). */
  @Property({ type: 'string', length: 1000, nullable: true })
  lastError?: string | null;

  @Property({ type: Date, length: 3, nullable: true })
  deliveredAt?: Date | null;

  @Property({ type: 'string', length: 36, nullable: true })
  leaseOwner?: string | null;

  @Property({ type: Date, length: 3, nullable: true })
  leaseUntil?: Date | null;

  /**
   * When a replay last put the delivery back: replayed deliveries wait behind live ones, and an endpoint's replay
   * runs while one of them still awaits its first attempt.
   */
  @Property({ type: Date, length: 3, nullable: true })
  replayedAt?: Date | null;

  /** When the event happened. */
  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();
}
