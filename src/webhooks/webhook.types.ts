import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { TimestampScalar } from '../platform/validation/timestamp';
import { JSONObjectScalar } from '../platform/validation/json';
import { WebhookDeliveryStatus, WebhookEventType } from './webhook-event-type';

@ObjectType('WebhookEndpoint', { description: 'Where an API client receives its tender events, signed per Standard Webhooks.' })
export class WebhookEndpointView {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: 'The app_id of the client that receives the events.' })
  appId!: string;

  @Field(() => String)
  url!: string;

  @Field(() => [WebhookEventType])
  eventTypes!: WebhookEventType[];

  @Field(() => String)
  description!: string;

  @Field(() => Boolean, { description: 'False after a 410 Gone from the endpoint, or when its owner disabled it; events wait meanwhile.' })
  enabled!: boolean;

  @Field(() => String, { nullable: true })
  disabledReason!: string | null;

  @Field(() => TimestampScalar)
  createdAt!: Date;

  @Field(() => TimestampScalar)
  updatedAt!: Date;
}

@ObjectType('CreatedWebhookEndpoint')
export class CreatedWebhookEndpointView {
  @Field(() => WebhookEndpointView)
  endpoint!: WebhookEndpointView;

  @Field(() => String, { description: 'The signing secret (whsec_...), shown only now: verify every delivery with it.' })
  secret!: string;
}

@ObjectType('WebhookDelivery', { description: 'One event for one endpoint: its attempts and what came of them.' })
export class WebhookDeliveryView {
  @Field(() => ID, { description: 'The webhook-id header of every attempt.' })
  id!: string;

  @Field(() => String, { description: 'The event id in the payload, the same for every endpoint that receives the event.' })
  eventId!: string;

  @Field(() => WebhookEventType)
  eventType!: WebhookEventType;

  @Field(() => JSONObjectScalar, { description: 'The body as sent.' })
  payload!: Record<string, unknown>;

  @Field(() => WebhookDeliveryStatus)
  status!: WebhookDeliveryStatus;

  @Field(() => Int)
  attempts!: number;

  @Field(() => TimestampScalar, { nullable: true })
  nextAttemptAt!: Date | null;

  @Field(() => TimestampScalar, { nullable: true })
  lastAttemptAt!: Date | null;

  @Field(() => Int, { nullable: true, description: "The endpoint's HTTP status at the last attempt." })
  lastStatusCode!: number | null;

  @Field(() => String, { nullable: true })
  lastError!: string | null;

  @Field(() => TimestampScalar, { nullable: true })
  deliveredAt!: Date | null;

  @Field(() => TimestampScalar, { description: 'When the event happened.' })
  createdAt!: Date;
}

@ObjectType('WebhookDeliveryPage')
export class WebhookDeliveryPage {
  @Field(() => Int)
  count!: number;

  @Field(() => Int)
  skip!: number;

  @Field(() => Int)
  limit!: number;

  @Field(() => [WebhookDeliveryView])
  items!: WebhookDeliveryView[];
}

@InputType('CreateWebhookEndpointInput')
export class CreateWebhookEndpointInput {
  @Field(() => String, { nullable: true, description: "Internal users: the client whose endpoint this is. Others: their own client's." })
  appId?: string | null;

  @Field(() => String, { description: 'https (http only where the URL policy allows it, as in development).' })
  url!: string;

  @Field(() => [WebhookEventType])
  eventTypes!: WebhookEventType[];

  @Field(() => String, { nullable: true })
  description?: string | null;
}

@InputType('UpdateWebhookEndpointInput')
export class UpdateWebhookEndpointInput {
  @Field(() => String, { nullable: true })
  url?: string | null;

  @Field(() => [WebhookEventType], { nullable: true })
  eventTypes?: WebhookEventType[] | null;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Enable (after a 410 Gone, for example) or disable the endpoint.' })
  enabled?: boolean | null;
}
