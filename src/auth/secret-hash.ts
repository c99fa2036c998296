import { randomBytes, scrypt, timingSafeEqual, type BinaryLike, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';

const KEY_LENGTH = 32;
const PARAMS: ScryptOptions = { N: 16384, r: 8, p: 1 };

/**
 * A derivation holds 128 · N · r = 16 MiB and a core for some 40 ms; libuv's four threads ran four at once. Half the
 * cores (at least one, at most four) run them, the rest wait their turn: a burst of logins neither takes every core
 * from the API's requests nor adds 64 MiB to the process (docs/benchmark.md#memory: on two cores one at a time,
 * about 21 tokens a second).
 */
const derivations = pLimit(Math.min(4, Math.max(1, Math.floor(availableParallelism() / 2))));

function derive(secret: BinaryLike, salt: Buffer): Promise<Buffer> {
  return derivations(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(secret, salt, KEY_LENGTH, PARAMS, (error, key) => (error ? reject(error) : resolve(key))),
      ),
  );
}

export const generateSecret = (): string => randomBytes(32).toString('base64url');

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt);
  return `scrypt$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A hash nobody's secret matches, verified for unknown app ids so they take as long as known ones. */
const DECOY_HASH = `scrypt$${randomBytes(16).toString('base64url')}$${randomBytes(KEY_LENGTH).toString('base64url')}`;

export async function verifySecret(secret: string, storedHash: string | undefined): Promise<boolean> {
  const [scheme, salt, hash] = (storedHash ?? DECOY_HASH).split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(secret, Buffer.from(salt, 'base64url'));
  return expected.length === actual.length && timingSafeEqual(expected, actual) && storedHash !== undefined;
}
