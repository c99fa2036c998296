import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, Role, rolesFor } from '../src/access';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { launchBrowser } from './helpers/browser';
import { graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';

/**
 * The self-hosted explorer at /graphiql, in a real browser (headless Chromium driven by playwright-core, launched by
 * test/helpers/browser.ts: Debian's when installed, else the one @sparticuz/chromium ships): it loads with no request
 * leaving the gateway's host, and a query with a pasted token shows data.
 */
const QUERY = '{ tenders(limit: 2) { count items { id status } } }';

/** The browser globals the functions evaluated in the page use (the test's tsconfig has no DOM types). */
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null;
  addEventListener(type: 'securitypolicyviolation', listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
};
declare const sessionStorage: { length: number; getItem(key: string): string | null };
declare const localStorage: object;

let gateway: Gateway;
/** The same app as NODE_ENV=production runs it. */
let production: Gateway;
let browser: Browser | undefined;
let analyst: string;
let tenderIds: string[];
let world: World;

beforeAll(async () => {
  gateway = await startGateway();
  world = await createWorld(gateway.em());
  tenderIds = [];
  for (let i = 0; i < 3; i++) tenderIds.push((await createTender(gateway.em(), world)).id);
  analyst = await tokenFor(gateway, Role.ANALYST);
  production = await startGateway({ env: { NODE_ENV: 'production' } });
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await production?.close();
});

/** A Content-Security-Policy header as directive → sources. */
const policyOf = (header: string) =>
  new Map(
    header
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .map(([name, ...sources]) => [name, sources]),
  );

/** One browser for the file, launched when a test first needs it. */
async function theBrowser(): Promise<Browser> {
  browser ??= await launchBrowser();
  return browser;
}

/** A page that records every request it makes, and every console error, page error and CSP violation. */
async function openPage(target: Gateway = gateway): Promise<{
  page: Page;
  requests: { url: URL; method: string; headers: Record<string, string> }[];
  errors: string[];
}> {
  const context = await (await theBrowser()).newContext();
  const requests: { url: URL; method: string; headers: Record<string, string> }[] = [];
  const errors: string[] = [];
  const host = new URL(target.url).host;
  // As on a locked-down network: nothing but the gateway answers (and the test fails if anything else was asked).
  await context.route(
    (url) => url.host !== host,
    (route) => route.abort('blockedbyclient'),
  );
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const page = await context.newPage();
  // Generous: the page waits are for a busy CI machine's Chromium, not a measure of speed.
  page.setDefaultTimeout(20_000);
  page.on('request', (request) => requests.push({ url: new URL(request.url()), method: request.method(), headers: request.headers() }));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return { page, requests, errors };
}

const resultText = (page: Page) => page.locator('.result-window').innerText();
// Functions, not strings, are evaluated in the page: the page's CSP refuses eval, Playwright's too.
const resultShows = (page: Page, pattern: RegExp) =>
  page.waitForFunction((source) => new RegExp(source).test(document.querySelector('.result-window')?.textContent ?? ''), pattern.source);

describe('the explorer at /graphiql', { timeout: 90_000 }, () => {
  it('loads from the gateway alone, takes a pasted token and shows the data of a query', async () => {
    const { page, requests, errors } = await openPage();
    const statuses: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/graphql') statuses.push(response.status());
    });

    await page.goto(`${gateway.url}/graphiql?query=${encodeURIComponent(QUERY)}`);
    await page.locator('.graphiql-container').waitFor();
    // Without a token nothing is sent: the explorer says what to do.
    await page.locator('.graphiql-execute-button').click();
    await resultShows(page, /Paste a bearer token/);
    expect(requests.filter(({ url }) => url.pathname === '/graphql')).toEqual([]);

    expect(await page.locator('#explorer-token').getAttribute('type')).toBe('password');
    // GraphiQL's Headers tab is off: its query history would keep a token typed there in localStorage.
    expect(await page.getByRole('button', { name: 'Variables', exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Headers', exact: true }).count()).toBe(0);
    const introspection = page.waitForResponse((response) => new URL(response.url()).pathname === '/graphql');
    await page.locator('#explorer-token').fill(analyst);
    // With the token the schema loads (introspection answers analysts): the docs explorer shows the root types.
    expect((await introspection).status()).toBe(200);
    await page.locator('[aria-label="Show Documentation Explorer"]').click();
    await page.locator('.graphiql-doc-explorer').getByText('Root Types').waitFor();
    await page.locator('.graphiql-execute-button').click();
    await resultShows(page, /"count": 3/);
    const result = await resultText(page);
    expect(result).toContain('"status": "QUOTES_AVAILABLE"');
    expect(tenderIds.some((id) => result.includes(id))).toBe(true);

    // A dialog adds GraphiQL's scroll-lock style: the CSP allows exactly that one (by its hash).
    await page.locator('[aria-label="Open settings dialog"]').click();
    await page.getByText('Clear storage').waitFor();
    await page.keyboard.press('Escape');

    const gatewayHost = new URL(gateway.url).host;
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.filter(({ url }) => url.host !== gatewayHost).map(({ url }) => url.href)).toEqual([]);
    expect(requests.map(({ url }) => url.pathname)).toEqual(
      expect.arrayContaining([
        '/graphiql',
        '/graphiql/explorer.js',
        '/graphiql/explorer.css',
        expect.stringMatching(/^\/graphiql\/assets\/graphiql@[\d.]+\/graphiql\.min\.js$/),
      ]),
    );
    // The token leaves the page only as the Authorization header of POSTs to /graphql, and stays in this tab.
    const carrying = requests.filter(
      ({ url, headers }) => url.href.includes(analyst) || Object.values(headers).some((value) => value.includes(analyst)),
    );
    expect(carrying.length).toBeGreaterThanOrEqual(2);
    for (const { url, method, headers } of carrying) {
      expect(`${method} ${url.pathname}${url.search}`).toBe('POST /graphql');
      expect(headers.authorization).toBe(`Bearer ${analyst}`);
    }
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const [sessionKeys, session, local] = await page.evaluate(
      () => [sessionStorage.length, sessionStorage.getItem('tender-exchange.explorer.token'), JSON.stringify(localStorage)] as const,
    );
    expect([sessionKeys, session]).toEqual([1, analyst]);
    expect(local).not.toContain(analyst);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('is served with a strict Content-Security-Policy: scripts from the gateway only, no eval, no other host', async () => {
    const response = await fetch(`${gateway.url}/graphiql`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/i);
    const header = response.headers.get('content-security-policy') ?? '';
    const csp = policyOf(header);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(header).not.toContain('unsafe-eval');
    expect(header).not.toContain('unsafe-inline');
    for (const source of [...csp.values()].flat()) expect(source).toMatch(/^('self'|'none'|data:|'sha256-[A-Za-z0-9+/=]+')$/);
  });

  it("tells which tokens load the schema as the access policy has it (every role's), and each role's token does", async () => {
    const html = await (await fetch(`${gateway.url}/graphiql`)).text();
    const hint = /placeholder="paste an access token \(([^)]*)\)"/.exec(html)?.[1];
    expect(rolesFor('introspection')).toEqual(ROLES);
    expect(hint).toBe("every role's token also loads the schema");
    for (const role of ROLES) {
      const binding = { insurerId: world.insurers[0].id, brokerCompanyId: world.brokers[0].id };
      const token = await tokenFor(
        gateway,
        role,
        role === Role.INSURER ? { insurerId: binding.insurerId } : role === Role.BROKER ? { brokerCompanyId: binding.brokerCompanyId } : {},
      );
      const { status, body } = await graphql(gateway, token, '{ __schema { queryType { name } } }');
      expect([role, status, body.data]).toEqual([role, 200, { __schema: { queryType: { name: 'Query' } } }]);
    }
  });

  it('serves its files from the installed packages, cached for good under their versions; GET and HEAD only', async () => {
    const html = await (await fetch(`${gateway.url}/graphiql`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/graphiql\/assets\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets).toHaveLength(4);
    for (const asset of assets) {
      const response = await fetch(`${gateway.url}${asset}`, { method: 'HEAD' });
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('cache-control'), asset).toBe('public, max-age=31536000, immutable');
    }
    expect((await fetch(`${gateway.url}/graphiql`)).headers.get('cache-control')).toBe('no-cache');
    expect((await fetch(`${gateway.url}/graphiql/assets/graphiql@3.8.3/package.json`)).status).toBe(404);
    expect((await fetch(`${gateway.url}/graphiql/assets/graphiql@3.8.3/..%2Fpackage.json`)).status).toBe(404);
    for (const path of ['/graphiql', '/graphiql/explorer.js']) {
      const refused = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(405);
      expect(refused.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('leaves Apollo Sandbox the default at GET /graphql for browsers online', async () => {
    const response = await fetch(`${gateway.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toMatch(/<!DOCTYPE html>/i);
    expect(html).toContain('embeddable-sandbox');
    // The way on for a browser offline is in the HTML itself, beside Sandbox's message, not added by its script.
    expect(html).toMatch(
      /<div class="fallback">[^]*Apollo Sandbox cannot be loaded[^]*<\/p>\s*<p>[^<]*<a href="\/graphiql">open it at \/graphiql<\/a>/,
    );
  });

  it('shows a browser without the internet a link from /graphql to the explorer at /graphiql, which opens', async () => {
    const { page } = await openPage();
    await page.goto(`${gateway.url}/graphql`);
    // Apollo Sandbox's script cannot load (only the gateway answers): its message shows, and the link beside it.
    await page.getByText('Apollo Sandbox cannot be loaded').waitFor();
    const link = page.getByRole('link', { name: /graphiql/ });
    await link.waitFor({ state: 'visible' });
    await link.click();
    await page.waitForURL(`${gateway.url}/graphiql`);
    await page.locator('.graphiql-container').waitFor();
  });

  it('answers a GET query from other clients only with a header a cross-site form cannot send (as docs/graphql.md says)', async () => {
    const url = `${gateway.url}/graphql?query=${encodeURIComponent('{ __typename }')}`;
    const plain = await fetch(url, { headers: { authorization: `Bearer ${analyst}` } });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as { errors: { message: string }[] }).errors[0].message).toMatch(/Cross-Site Request Forgery/);
    const preflighted = await fetch(url, { headers: { authorization: `Bearer ${analyst}`, 'apollo-require-preflight': 'true' } });
    expect(preflighted.status).toBe(200);
    expect(await preflighted.json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('GET /graphql in a browser in production', { timeout: 90_000 }, () => {
  it("is the gateway's own page: no other origin in its HTML, a policy that allows none, and a link to /graphiql", async () => {
    const response = await fetch(`${production.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('<a href="/graphiql">');
    // No absolute or protocol-relative URL, no script, no style: nothing that could load from elsewhere.
    expect(html).not.toMatch(/https?:|\/\/[a-z0-9]|<script|<style|<link|<iframe|<img|\ssrc=/i);
    const csp = policyOf(response.headers.get('content-security-policy') ?? '');
    expect(csp.get('default-src')).toEqual(["'none'"]);
    for (const source of [...csp.values()].flat()) expect(source).toMatch(/^('self'|'none')$/);
  });

  it('loads nothing but the page itself in a browser, and its link opens the explorer', async () => {
    const { page, requests, errors } = await openPage(production);
    await page.goto(`${production.url}/graphql`);
    await page.getByRole('heading', { name: 'Tender Exchange GraphQL' }).waitFor();
    expect(requests.map(({ url }) => url.href)).toEqual([`${production.url}/graphql`]);
    await page.getByRole('link', { name: '/graphiql' }).click();
    await page.waitForURL(`${production.url}/graphiql`);
    await page.locator('.graphiql-container').waitFor();
    expect(requests.filter(({ url }) => url.origin !== production.url)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe('Swagger UI at /docs', { timeout: 90_000 }, () => {
  it('offers the demo credentials in the token request it fills in, not "string"', async () => {
    const { page } = await openPage();
    await page.goto(`${gateway.url}/docs`);
    const operation = page.locator('#operations-Tokens-postAuthToken');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const body = JSON.parse(await operation.locator('textarea.body-param__text').inputValue()) as Record<string, unknown>;
    expect(body).toEqual({ app_id: 'demo-broker', secret: 'demo-broker-secret' });
    await page.context().close();
  });
});
