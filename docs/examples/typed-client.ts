/**
 * A typed client from the OpenAPI document, as an integrator would make one (docs/rest-api.md):
 *   npm run cli -- openapi:emit dist/openapi.json
 *   npx openapi-typescript dist/openapi.json -o dist/client/schema.d.ts
 * CI compiles this file against the generated types (`npm run lint:openapi`), so the document keeps generating
 * types a client can use.
 */
import type { components, paths } from '../../dist/client/schema';

type TenderPage = paths['/api/v1/tenders']['get']['responses'][200]['content']['application/json'];
type Tender = components['schemas']['Tender'];
type Problem = components['schemas']['Problem'];
type NewEndpoint = paths['/integration/v1/webhook-endpoints']['post']['requestBody']['content']['application/json'];
type TokenRequest = paths['/auth/token']['post']['requestBody']['content']['application/json'];
type TokenResponse = paths['/auth/token']['post']['responses'][200]['content']['application/json'];

/**
 * The token operation declares one request type, JSON, so a generated client (orval, openapi-fetch) knows what to send;
 * with the OAuth form declared beside it, orval sent no content type and got 415. The form is its own operation.
 */
export const tokenRequestTypes: keyof paths['/auth/token']['post']['requestBody']['content'] extends 'application/json' ? true : false =
  true;

export async function accessToken(base: string, credentials: TokenRequest): Promise<string> {
  const response = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  if (!response.ok) throw new Error(((await response.json()) as Problem).detail);
  return ((await response.json()) as TokenResponse).access_token;
}

export async function openTenders(base: string, token: string): Promise<Tender[]> {
  const response = await fetch(`${base}/api/v1/tenders/open?limit=50`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(((await response.json()) as Problem).detail);
  const page = (await response.json()) as TenderPage;
  // `count`, `skip` and `limit` are strings, as the specification has them.
  console.log(`${page.payload.length} of ${Number(page.metadata.count)} open tenders`);
  return page.payload;
}

export const subscription: NewEndpoint = {
  url: 'https://broker.example/hooks/tenders',
  event_types: ['tender.status_changed', 'quote.received'],
};

/**
 * Polls the open tenders cheaply: the ETag of the last answer goes back in If-None-Match, and a 304 (no body)
 * means nothing this client may see has changed. Generated clients such as openapi-fetch hand a 304 over as an
 * error with an empty body: check the status before reading the body.
 */
export async function pollOpenTenders(base: string, token: string, onChange: (tenders: Tender[]) => void, everyMs = 30_000) {
  let etag: string | undefined;
  for (;;) {
    const response = await fetch(`${base}/api/v1/tenders/open?limit=200`, {
      headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
    });
    if (response.status === 200) {
      etag = response.headers.get('etag') ?? undefined;
      onChange(((await response.json()) as TenderPage).payload);
    } else if (response.status !== 304) throw new Error(((await response.json()) as Problem).detail);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
