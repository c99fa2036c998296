import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** A logger for a gateway whose every line the test reads back: `lines` as the gateway wrote them. */
export function capturedLogger(level = 'info'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}
