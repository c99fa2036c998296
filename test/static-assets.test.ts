import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { awayFromWindowEdge } from './helpers/rate-limit-window';
import { withGateway } from './helpers/scene';

/**
 * The explorer's and Swagger UI's files: limited per address like everything else a stranger can ask for, sent
 * compressed when the client accepts it, and still cacheable (ETag, 304).
 */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET from `localAddress` (127.0.0.2, ...), as a client elsewhere would send it; the body as sent, not decoded. */
function get(localAddress: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${scene.gateway.url}${path}`, { localAddress, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

let graphiqlPath: string;
const graphiqlFile = join(__dirname, '..', 'node_modules', 'graphiql', 'graphiql.min.js');

const scene = withGateway({ per: 'file', host: '::', env: { STATIC_RATE_LIMIT_PER_MINUTE: '12' } });

beforeAll(async () => {
  const page = (await get('127.0.0.9', '/graphiql')).body.toString();
  graphiqlPath = /src="(\/graphiql\/assets\/graphiql@[^"]+\/graphiql\.min\.js)"/.exec(page)![1];
});

describe('static assets', () => {
  it('an anonymous client past the static-asset limit gets 429 problem+json with Retry-After, while another address is still served', async () => {
    await awayFromWindowEdge(60_000);
    const statuses: number[] = [];
    let last: Answer | undefined;
    for (let i = 0; i < 13; i++) {
      last = await get('127.0.0.2', i % 2 === 0 ? '/docs/assets/swagger-ui.css' : graphiqlPath, { 'accept-encoding': 'gzip' });
      statuses.push(last.status);
    }
    expect(
      statuses.slice(0, 12).every((status) => status === 200),
      String(statuses),
    ).toBe(true);
    expect(last!.status).toBe(429);
    expect(last!.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(last!.body.toString())).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    // The pages count too, and so does the contract the /docs page loads.
    expect((await get('127.0.0.2', '/docs')).status).toBe(429);
    expect((await get('127.0.0.2', '/openapi.json')).status).toBe(429);
    // Another address has its own budget.
    const other = await get('127.0.0.3', graphiqlPath, { 'accept-encoding': 'gzip' });
    expect(other.status).toBe(200);
    // The API itself is not limited by the assets' budget: the address still gets its (401) answer.
    expect((await get('127.0.0.2', '/api/v1/tenders')).status).toBe(401);
  });

  it.each([
    ['gzip', gunzipSync],
    ['br', brotliDecompressSync],
  ])('accept-encoding: %s gets a compressed body that decompresses to the original bytes', async (encoding, decompress) => {
    const original = readFileSync(graphiqlFile);
    const answer = await get('127.0.0.4', graphiqlPath, { 'accept-encoding': encoding });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(encoding);
    expect(answer.headers.vary).toMatch(/accept-encoding/i);
    expect(answer.headers['content-type']).toMatch(/javascript/);
    expect(answer.body.length).toBeLessThan(original.length / 3);
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(decompress(answer.body).equals(original)).toBe(true);
    const swaggerCss = readFileSync(join(getAbsoluteFSPath(), 'swagger-ui.css'));
    const css = await get('127.0.0.4', '/docs/assets/swagger-ui.css', { 'accept-encoding': encoding });
    expect(css.headers['content-encoding']).toBe(encoding);
    expect(decompress(css.body).equals(swaggerCss)).toBe(true);
  });

  it("a browser's accept-encoding (gzip, deflate, br, all equal) gets brotli, the smaller", async () => {
    const answer = await get('127.0.0.4', graphiqlPath, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(answer.body).equals(readFileSync(graphiqlFile))).toBe(true);
    const brotliRefused = await get('127.0.0.4', graphiqlPath, { 'accept-encoding': 'gzip, br;q=0' });
    expect(brotliRefused.headers['content-encoding']).toBe('gzip');
  });

  it('a client that accepts no compression gets the original bytes', async () => {
    const answer = await get('127.0.0.5', graphiqlPath, { 'accept-encoding': 'identity' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.equals(readFileSync(graphiqlFile))).toBe(true);
  });

  it('conditional requests still answer 304, and the assets stay cacheable as before', async () => {
    const first = await get('127.0.0.6', graphiqlPath, { 'accept-encoding': 'gzip' });
    expect(first.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await get('127.0.0.6', graphiqlPath, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const docs = await get('127.0.0.6', '/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'br' });
    expect(docs.status).toBe(200);
    expect(docs.headers['cache-control']).toMatch(/^public/);
    const docsAgain = await get('127.0.0.6', '/docs/assets/swagger-ui-bundle.js', {
      'accept-encoding': 'br',
      'if-none-match': docs.headers.etag as string,
    });
    expect(docsAgain.status).toBe(304);
    expect((await get('127.0.0.6', '/docs/assets/nope.js')).status).toBe(404);
  });
});
