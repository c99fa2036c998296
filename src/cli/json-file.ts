import { open } from 'node:fs/promises';
import { DomainError, badInput } from '../platform/errors/domain-error';
import { MAX_BODY_DEPTH, rawJsonDepth } from '../platform/validation/json';

/**
 * A JSON file an operator hands a command, read as the gateway reads a request body: at most `maxBytes` (checked
 * before anything is parsed, however large the file or endless the pipe), UTF-8, nesting at most MAX_BODY_DEPTH
 * deep (counted on the text, so nothing recursive sees absurd nesting), then parsed. Any other file is refused as
 * BAD_USER_INPUT naming it: a usage error, exit code 2.
 */
export async function readJsonFile(path: string, maxBytes: number): Promise<unknown> {
  const refused = (why: string) => badInput(`${path} ${why}`);
  const tooLarge = () => refused(`is larger than ${maxBytes / 1024} KiB: not read`);
  let bytes: Buffer;
  try {
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      if (size > maxBytes) throw tooLarge();
      // Read one byte past the limit: a file that grew, or a pipe, is refused the same way.
      const buffer = Buffer.alloc(maxBytes + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await file.read(buffer, length, buffer.length - length);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length > maxBytes) throw tooLarge();
      }
      bytes = buffer.subarray(0, length);
    } finally {
      await file.close();
    }
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw refused(`cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refused('is not UTF-8 text');
  }
  if (rawJsonDepth(text) > MAX_BODY_DEPTH) throw refused(`nests deeper than ${MAX_BODY_DEPTH} levels: not read`);
  try {
    // JSON.parse makes a `__proto__` key an own property like any other: it never reaches a prototype.
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw refused(`is not JSON: ${(error as Error).message}`);
  }
}
