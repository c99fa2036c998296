import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { percentile } from './hostile';

/** Ten documents of 20 MiB at once, up and down (issue 28, "memory stays flat"). */
const DOCUMENTS = 10;
const DOCUMENT_BYTES = 20 * 1024 * 1024;
const CHUNK = 64 * 1024;

export interface DocumentsResult {
  uploadMs: number;
  downloadMs: number;
  uploaded: number;
  downloaded: number;
  peakRssMiB: number;
  bystanderP50Ms: number;
  bystanderP99Ms: number;
  bystanderReads: number;
}

/** A PDF's head, then the same chunk over and over: made as it is sent, so the bench holds no document either. */
function chunkOf(index: number): Buffer {
  const chunk = Buffer.alloc(CHUNK, 0x20 + (index % 64));
  Buffer.from('%PDF-1.4\n').copy(chunk);
  return chunk;
}

const documentStream = (index: number) =>
  Readable.from(
    (function* () {
      for (let sent = 0; sent < DOCUMENT_BYTES; sent += CHUNK) yield chunkOf(index);
    })(),
  );

function sha256Of(index: number): string {
  const hash = createHash('sha256');
  for (let sent = 0; sent < DOCUMENT_BYTES; sent += CHUNK) hash.update(chunkOf(index));
  return hash.digest('hex');
}

function put(url: string, body: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = request(url, { method: 'PUT', headers: { 'content-length': String(DOCUMENT_BYTES) } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    call.on('error', reject);
    body.pipe(call);
  });
}

/** Reads a download to its end without keeping it. */
async function drain(url: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { headers });
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return bytes;
}

/**
 * Uploads ten 20 MiB documents at once to the production start, then downloads them at once, while a bystander (another
 * broker) reads its first page every 50 ms: the gateway's peak RSS and the bystander's latency.
 */
export async function documentsScenario(
  gw: string,
  pid: number,
  tenderId: string,
  broker: Record<string, string>,
  bystander: Record<string, string>,
): Promise<DocumentsResult> {
  let peak = 0;
  const rss = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      peak = Math.max(peak, Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024);
    } catch {
      // the process is gone
    }
  }, 50);
  const latencies: number[] = [];
  let reading = true;
  const bystanderLoop = (async () => {
    while (reading) {
      const started = performance.now();
      await (await fetch(`${gw}/api/v1/tenders?limit=1`, { headers: bystander })).text();
      latencies.push(Math.round(performance.now() - started));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();

  const slots = await Promise.all(
    Array.from({ length: DOCUMENTS }, async (_, index) => {
      const response = await fetch(`${gw}/graphql`, {
        method: 'POST',
        headers: { ...broker, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation ($input: CreateDocumentUploadInput!) { createDocumentUpload(input: $input) { uploadUrl document { id } } }',
          variables: {
            input: {
              tenderId,
              kind: 'RISK',
              filename: `bench-${index}.pdf`,
              contentType: 'application/pdf',
              size: DOCUMENT_BYTES,
              sha256: sha256Of(index),
            },
          },
        }),
      });
      const body = (await response.json()) as {
        data?: { createDocumentUpload: { uploadUrl: string; document: { id: string } } };
        errors?: unknown;
      };
      if (!body.data) throw new Error(`createDocumentUpload: ${JSON.stringify(body.errors)}`);
      return body.data.createDocumentUpload;
    }),
  );
  let started = performance.now();
  const statuses = await Promise.all(slots.map((slot, index) => put(slot.uploadUrl, documentStream(index))));
  const uploadMs = Math.round(performance.now() - started);
  started = performance.now();
  const sizes = await Promise.all(
    slots.map((slot) => drain(`${gw}/api/v1/tenders/${tenderId}/documents/${slot.document.id}/content`, broker)),
  );
  const downloadMs = Math.round(performance.now() - started);
  reading = false;
  await bystanderLoop;
  clearInterval(rss);
  return {
    uploadMs,
    downloadMs,
    uploaded: statuses.filter((status) => status === 200).length,
    downloaded: sizes.filter((size) => size === DOCUMENT_BYTES).length,
    peakRssMiB: Math.round(peak),
    bystanderP50Ms: percentile(latencies, 0.5),
    bystanderP99Ms: percentile(latencies, 0.99),
    bystanderReads: latencies.length,
  };
}
