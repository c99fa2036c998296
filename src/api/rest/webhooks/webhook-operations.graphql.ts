/** The GraphQL operations behind the REST webhook routes; aliases give the REST (snake_case) field names. */
const ENDPOINT = /* GraphQL */ `
  fragment RestWebhookEndpoint on WebhookEndpoint {
    _id: id
    app_id: appId
    url
    event_types: eventTypes
    description
    enabled
    disabled_reason: disabledReason
    created_at: createdAt
    updated_at: updatedAt
  }
`;

export const REST_WEBHOOK_ENDPOINTS = /* GraphQL */ `
  ${ENDPOINT}
  query RestWebhookEndpoints {
    webhookEndpoints {
      ...RestWebhookEndpoint
    }
  }
`;

export const REST_WEBHOOK_ENDPOINT = /* GraphQL */ `
  ${ENDPOINT}
  query RestWebhookEndpoint($id: ID!) {
    webhookEndpoint(id: $id) {
      ...RestWebhookEndpoint
    }
  }
`;

export const REST_CREATE_WEBHOOK_ENDPOINT = /* GraphQL */ `
  ${ENDPOINT}
  mutation RestCreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
    created: createWebhookEndpoint(input: $input) {
      endpoint {
        ...RestWebhookEndpoint
      }
      secret
    }
  }
`;

export const REST_UPDATE_WEBHOOK_ENDPOINT = /* GraphQL */ `
  ${ENDPOINT}
  mutation RestUpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {
    updateWebhookEndpoint(id: $id, input: $input) {
      ...RestWebhookEndpoint
    }
  }
`;

export const REST_ROTATE_WEBHOOK_SECRET = /* GraphQL */ `
  ${ENDPOINT}
  mutation RestRotateWebhookSecret($id: ID!) {
    created: rotateWebhookEndpointSecret(id: $id) {
      endpoint {
        ...RestWebhookEndpoint
      }
      secret
    }
  }
`;

export const REST_DELETE_WEBHOOK_ENDPOINT = /* GraphQL */ `
  mutation RestDeleteWebhookEndpoint($id: ID!) {
    deleteWebhookEndpoint(id: $id)
  }
`;

export const REST_WEBHOOK_DELIVERIES = /* GraphQL */ `
  query RestWebhookDeliveries($id: ID!, $status: WebhookDeliveryStatus, $skip: Int, $limit: Int) {
    webhookDeliveries(endpointId: $id, status: $status, skip: $skip, limit: $limit) {
      count
      skip
      limit
      items {
        _id: id
        event_id: eventId
        event_type: eventType
        payload
        status
        attempts
        next_attempt_at: nextAttemptAt
        last_attempt_at: lastAttemptAt
        last_status_code: lastStatusCode
        last_error: lastError
        delivered_at: deliveredAt
        created_at: createdAt
      }
    }
  }
`;

export const REST_REPLAY_WEBHOOK_DELIVERIES = /* GraphQL */ `
  mutation RestReplayWebhookDeliveries($id: ID!, $since: DateTimeISO!) {
    replayWebhookDeliveries(endpointId: $id, since: $since)
  }
`;
