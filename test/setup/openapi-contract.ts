import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { afterAll } from 'vitest';
import { openApiDocument } from '../../src/api/rest/openapi/openapi-document';

/**
 * Every REST exchange the suite makes is checked against the OpenAPI document: a documented status, the
 * documented content type, a body that matches the schema; and a request the gateway accepts (2xx) has a body
 * the document's request schema accepts. So the document cannot drift from the code, either way.
 */
type Content = Record<string, { schema: object }>;
type Operation = { requestBody?: { required?: boolean; content: Content }; responses: Record<string, { content?: Content }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: object };
const doc = openApiDocument as unknown as Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

const templates = Object.keys(doc.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));
const compiled = new Map<string, ValidateFunction>();
const violations: string[] = [];

function validatorFor(key: string, schema: object): ValidateFunction {
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ ...schema, components: doc.components });
    compiled.set(key, validate);
  }
  return validate;
}

/** A body the gateway accepted must be one the document allows: the request schemas are the code's own rules. */
function checkRequest(where: string, key: string, operation: Operation, body: string | undefined, type: string): void {
  const requestBody = operation.requestBody;
  if (!requestBody) {
    if (body) violations.push(`${where}: accepted a body, but the document describes none`);
    return;
  }
  // Bytes (a document's upload): not JSON, checked by the tests themselves.
  if (!requestBody.content['application/json']) return;
  if (body === undefined) {
    if (requestBody.required) violations.push(`${where}: accepted no body, but the document requires one`);
    return;
  }
  const content = requestBody.content[type];
  if (!content) {
    violations.push(`${where}: accepted a body of type ${type}, which the document does not describe`);
    return;
  }
  let parsed: unknown;
  try {
    parsed = type === 'application/x-www-form-urlencoded' ? Object.fromEntries(new URLSearchParams(body)) : JSON.parse(body);
  } catch {
    violations.push(`${where}: accepted a body that is not JSON`);
    return;
  }
  const validate = validatorFor(`${key} request ${type}`, content.schema);
  if (!validate(parsed)) violations.push(`${where}: accepted a request body the document refuses: ${ajv.errorsText(validate.errors)}`);
}

async function check(method: string, url: URL, response: Response, requestBody: string | undefined, requestType: string): Promise<void> {
  // The most specific template: literal paths (/tenders/open) before parameters (/tenders/{id}).
  const match = templates
    .filter(({ pattern }) => pattern.test(url.pathname))
    .sort((a, b) => a.template.split('{').length - b.template.split('{').length)[0];
  const operation = match && doc.paths[match.template][method.toLowerCase()];
  if (!operation) return; // not a documented operation: a 404/405 problem, checked by the tests themselves
  const where = `${method} ${url.pathname} → ${response.status}`;
  if (response.ok) checkRequest(where, `${match.template} ${method}`, operation, requestBody, requestType);
  const documented = operation.responses[String(response.status)];
  if (!documented) {
    violations.push(`${where}: status not documented`);
    return;
  }
  if (method === 'HEAD' || !documented.content) return;
  const type = (response.headers.get('content-type') ?? '').split(';')[0];
  const content = documented.content[type];
  if (!content) {
    violations.push(`${where}: content type ${type} not documented`);
    return;
  }
  // Bytes (a document's content) and pages (a mail's unsubscribe page): not JSON, checked by the tests themselves.
  if ((content.schema as { format?: string }).format === 'binary' || type === 'text/html') return;
  const body = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    violations.push(`${where}: body is not JSON`);
    return;
  }
  const validate = validatorFor(`${match.template} ${method} ${response.status} ${type}`, content.schema);
  if (!validate(parsed)) violations.push(`${where}: ${ajv.errorsText(validate.errors)}`);
}

const originalFetch = globalThis.fetch;
globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await originalFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  // Strings and forms (URLSearchParams, as OAuth client libraries send them); JSON unless the request says otherwise.
  const sent = init?.body instanceof URLSearchParams ? init.body.toString() : init?.body;
  const body = typeof sent === 'string' && sent !== '' ? sent : undefined;
  const type = (new Headers(init?.headers).get('content-type') ?? 'application/json').split(';')[0].trim().toLowerCase();
  if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') await check(method, url, response.clone(), body, type);
  return response;
};

afterAll(() => {
  if (violations.length > 0) throw new Error(`REST responses that contradict the OpenAPI document:\n${violations.join('\n')}`);
});
