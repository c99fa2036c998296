import type { Readable } from 'node:stream';
import type { Response } from 'express';

/**
 * Streams `source` as the answer's body; settles when the answer is done (rejects when `source` fails, which cuts the
 * answer off: its status is sent already). A client gone stops the reading and releases the source (a file).
 *
 * Not `stream.pipeline(source, res)`: on an http.ServerResponse it adds seven 'close' listeners (end-of-stream's
 * legacy path, twice), four of them kept until the response is gone. With the gateway's two (request log, timeout)
 * and, while tracing, OpenTelemetry's two (the HTTP server span's and the Express handler span's), every file
 * download passed Node's limit of ten listeners and logged a MaxListenersExceededWarning. This adds two at most.
 */
export function streamAnswer(res: Response, source: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    source.once('error', (error) => {
      reject(error);
      res.destroy(error);
    });
    res.once('close', () => {
      source.destroy();
      resolve();
    });
    source.pipe(res);
  });
}
