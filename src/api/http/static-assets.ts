import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Below this size compressing saves less than the headers it adds. */
const COMPRESS_FROM_BYTES = 1024;
/**
 * The encodings offered, ours first: the first the client accepts is sent (browsers list `gzip, deflate, br` with
 * equal weight, and brotli is about 100 KB smaller on the GraphiQL bundle).
 */
const COMPRESSIONS = ['br', 'gzip'] as const;
type Encoding = (typeof COMPRESSIONS)[number] | 'identity';

/** What is kept of one file: its compressed forms (the original is read from disk when asked for), its validators. */
interface Prepared {
  size: number;
  compressed: Partial<Record<Exclude<Encoding, 'identity'>, Buffer>>;
  etag: string;
  lastModified: string;
}

/** An asset: a file on disk, or text the gateway makes at start (the OpenAPI document). */
type AssetSource = { file: string } | { text: string; type: string };

/**
 * Static files compressed once per process (brotli quality 9 and gzip level 9, on the first request for each, off the
 * event loop) and then sent by Accept-Encoding with `Vary: Accept-Encoding`, a content-hash ETag (weak: the same for
 * every encoding) and Last-Modified, so conditional requests answer 304. Compressing per request (the `compression`
 * middleware's gzip level 6) cost 78–170 ms of CPU per download of the 3.4 MB GraphiQL bundle; compressed once (0.7 s),
 * a download costs about 3 ms (docs/benchmark.md). Only the compressed forms stay in memory (about 1.3 MB for that
 * bundle); the original is streamed from disk.
 */
export class PrecompressedAssets {
  private readonly prepared = new Map<string, Promise<Prepared>>();

  /** Sends `source` with `cacheControl`; the caller has checked the method (GET or HEAD). */
  send(req: Request, res: Response, next: NextFunction, key: string, source: AssetSource, cacheControl: string): void {
    this.prepare(key, source).then(
      (asset) => {
        if (res.headersSent || res.destroyed) return;
        const encoding: Encoding =
          COMPRESSIONS.find((candidate) => asset.compressed[candidate] && req.acceptsEncodings(candidate) === candidate) ?? 'identity';
        res.setHeader('Cache-Control', cacheControl);
        res.setHeader('ETag', asset.etag);
        res.setHeader('Last-Modified', asset.lastModified);
        res.setHeader('Vary', 'Accept-Encoding');
        res.type('file' in source ? extname(source.file) : source.type);
        if (req.fresh) {
          res.status(304).end();
          return;
        }
        const body = encoding === 'identity' ? undefined : asset.compressed[encoding];
        if (body) res.setHeader('Content-Encoding', encoding);
        res.setHeader('Content-Length', String(body?.length ?? asset.size));
        if (req.method === 'HEAD') res.end();
        else if (body) res.end(body);
        else if ('file' in source)
          createReadStream(source.file)
            .on('error', (error) => res.destroy(error))
            .pipe(res);
        else res.end(source.text);
      },
      (error: unknown) => {
        // A failure is not kept: the next request tries again.
        this.prepared.delete(key);
        next(error);
      },
    );
  }

  private prepare(key: string, source: AssetSource): Promise<Prepared> {
    let prepared = this.prepared.get(key);
    if (!prepared) {
      prepared = prepareAsset(source);
      this.prepared.set(key, prepared);
    }
    return prepared;
  }
}

async function prepareAsset(source: AssetSource): Promise<Prepared> {
  const [content, modified] =
    'file' in source
      ? await Promise.all([readFile(source.file), stat(source.file).then((info) => info.mtime)])
      : [Buffer.from(source.text), new Date()];
  const etag = `W/"${createHash('sha256').update(content).digest('base64url').slice(0, 27)}"`;
  const compressed: Prepared['compressed'] = {};
  if (content.length >= COMPRESS_FROM_BYTES) {
    const [br, gz] = await Promise.all([
      brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: content.length } }),
      gzipped(content, { level: 9 }),
    ]);
    if (br.length < content.length) compressed.br = br;
    if (gz.length < content.length) compressed.gzip = gz;
  }
  return { size: content.length, compressed, etag, lastModified: modified.toUTCString() };
}
