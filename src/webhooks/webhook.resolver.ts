import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { TimestampScalar } from '../platform/validation/timestamp';
import { Allowed } from '../access';
import type { WebhookContext } from './webhook-context';
import type { WebhookDelivery } from './webhook-delivery.entity';
import type { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { WebhookDeliveryStatus } from './webhook-event-type';
import {
  CreateWebhookEndpointInput,
  CreatedWebhookEndpointView,
  UpdateWebhookEndpointInput,
  WebhookDeliveryPage,
  WebhookDeliveryView,
  WebhookEndpointView,
} from './webhook.types';

const endpointView = (endpoint: WebhookEndpoint): WebhookEndpointView => ({
  id: endpoint.id,
  appId: endpoint.owner.appId,
  url: endpoint.url,
  eventTypes: endpoint.eventTypes,
  description: endpoint.description,
  enabled: !endpoint.disabledAt,
  disabledReason: endpoint.disabledReason ?? null,
  createdAt: endpoint.createdAt,
  updatedAt: endpoint.updatedAt,
});

const deliveryView = (delivery: WebhookDelivery): WebhookDeliveryView => ({
  id: delivery.id,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  payload: JSON.parse(delivery.payload) as Record<string, unknown>,
  status: delivery.status,
  attempts: delivery.attempts,
  nextAttemptAt: delivery.nextAttemptAt ?? null,
  lastAttemptAt: delivery.lastAttemptAt ?? null,
  lastStatusCode: delivery.lastStatusCode ?? null,
  lastError: delivery.lastError ?? null,
  deliveredAt: delivery.deliveredAt ?? null,
  createdAt: delivery.createdAt,
});

const service = ({ em, viewer, webhooks }: WebhookContext) => new WebhookEndpointService(em, viewer, webhooks);

/** Webhook endpoints and their delivery logs (docs/webhooks.md); the REST routes run these same operations. */
@Resolver()
export class WebhookResolver {
  @Allowed('webhookEndpoints')
  @Query(() => [WebhookEndpointView], { description: "The client's webhook endpoints (internal users: name the client by appId)." })
  async webhookEndpoints(
    @Arg('appId', () => String, { nullable: true }) appId: string | null,
    @Ctx() context: WebhookContext,
  ): Promise<WebhookEndpointView[]> {
    return (await service(context).list(appId)).map(endpointView);
  }

  @Allowed('webhookEndpoint')
  @Query(() => WebhookEndpointView)
  async webhookEndpoint(@Arg('id', () => ID) id: string, @Ctx() context: WebhookContext): Promise<WebhookEndpointView> {
    return endpointView(await service(context).get(id));
  }

  @Allowed('webhookDeliveries')
  @Query(() => WebhookDeliveryPage, { description: "An endpoint's delivery log, newest first." })
  async webhookDeliveries(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('status', () => WebhookDeliveryStatus, { nullable: true }) status: WebhookDeliveryStatus | null,
    @Arg('skip', () => Int, { defaultValue: 0 }) skip: number,
    @Arg('limit', () => Int, { defaultValue: 50 }) limit: number,
    @Ctx() context: WebhookContext,
  ): Promise<WebhookDeliveryPage> {
    const page = await service(context).deliveries(endpointId, { status, skip, limit });
    return { ...page, items: page.items.map(deliveryView) };
  }

  @Allowed('createWebhookEndpoint')
  @Mutation(() => CreatedWebhookEndpointView, { description: 'Registers an endpoint; its signing secret is returned once.' })
  async createWebhookEndpoint(
    @Arg('input', () => CreateWebhookEndpointInput) input: CreateWebhookEndpointInput,
    @Ctx() context: WebhookContext,
  ): Promise<CreatedWebhookEndpointView> {
    const { endpoint, secret } = await service(context).create(input);
    return { endpoint: endpointView(endpoint), secret };
  }

  @Allowed('updateWebhookEndpoint')
  @Mutation(() => WebhookEndpointView)
  async updateWebhookEndpoint(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateWebhookEndpointInput) input: UpdateWebhookEndpointInput,
    @Ctx() context: WebhookContext,
  ): Promise<WebhookEndpointView> {
    return endpointView(await service(context).update(id, input));
  }

  @Allowed('rotateWebhookEndpointSecret')
  @Mutation(() => CreatedWebhookEndpointView, {
    description:
      'A new signing secret, returned once; it signs every later delivery. For WEBHOOK_SECRET_GRACE (24 h by default) the old secret signs them too (a second signature in webhook-signature), so a receiver can switch over; after that, the new one alone.',
  })
  async rotateWebhookEndpointSecret(@Arg('id', () => ID) id: string, @Ctx() context: WebhookContext): Promise<CreatedWebhookEndpointView> {
    const { endpoint, secret } = await service(context).rotateSecret(id);
    return { endpoint: endpointView(endpoint), secret };
  }

  @Allowed('deleteWebhookEndpoint')
  @Mutation(() => Boolean, { description: 'Removes the endpoint and its delivery log.' })
  async deleteWebhookEndpoint(@Arg('id', () => ID) id: string, @Ctx() context: WebhookContext): Promise<boolean> {
    await service(context).remove(id);
    return true;
  }

  @Allowed('replayWebhookDeliveries')
  @Mutation(() => Int, {
    description:
      "Sends the events since a time again (the newest 1000 at most, and no more than is left of the client's WEBHOOK_REPLAY_PER_DAY), behind the client's live deliveries; returns how many. One replay per endpoint at a time: CONFLICT while the last one's deliveries await their first attempt; RATE_LIMITED when the day's volume is spent.",
  })
  replayWebhookDeliveries(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('since', () => TimestampScalar) since: Date,
    @Ctx() context: WebhookContext,
  ): Promise<number> {
    return service(context).replay(endpointId, since);
  }
}
