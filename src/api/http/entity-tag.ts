import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * Conditional GET (RFC 9110 13.1.2): tags the answer with what it is derived from and answers 304 when the
 * client's If-None-Match already names that tag, or is `*` and the resource is known to exist (`exists`: a list
 * always does; one tender only once it was read, see `answeredAsCurrent`). The parts must change whenever the body
 * would; the caller reads them without reading the body. Returns undefined when the 304 is sent, else the headers
 * the full answer carries: set on success only, so an error (a tender that is not there) never hands out a tag that
 * would later be a 304.
 */
export function conditionalRead(
  req: Request,
  res: Response,
  parts: readonly string[],
  { exists }: { exists: boolean },
): Record<string, string> | undefined {
  const headers = {
    ETag: `"${createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 32)}"`,
    'Cache-Control': 'private, no-cache',
  };
  // One client's tag says nothing about another's answer.
  res.vary('Authorization');
  const condition = req.headers['if-none-match'];
  if (!(namesTag(condition, headers.ETag) || (exists && isAny(condition)))) return headers;
  res.set(headers).status(304).end();
  return undefined;
}

/** After reading a resource that exists: answers 304 (with its headers) when If-None-Match is `*`. */
export function answeredAsCurrent(req: Request, res: Response, headers: Record<string, string>): boolean {
  if (!isAny(req.headers['if-none-match'])) return false;
  res.set(headers).status(304).end();
  return true;
}

const isAny = (header: string | undefined) => header?.trim() === '*';

/** One entity tag of a list (RFC 9110 8.8.3): optionally weak, its opaque part quoted; commas may sit inside the quotes. */
const ENTITY_TAG = /\s*(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/y;

/**
 * Whether If-None-Match names the tag, by weak comparison (RFC 9110 8.8.3.2: `W/"x"` matches `"x"`), in a list of
 * tags. A header that is no list of entity tags names nothing. Not Express's `req.fresh`: it ignores If-None-Match
 * when the request says `Cache-Control: no-cache`, which is a directive for caches, and which fetch() adds to every
 * request that carries If-None-Match.
 */
function namesTag(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const opaque = tag.replace(/^W\//, '');
  const tags: string[] = [];
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < header.length) {
    const match = ENTITY_TAG.exec(header);
    if (!match) return false;
    tags.push(match[1]);
  }
  return tags.includes(opaque);
}

/**
 * RFC 9110 13.1.2 for a representation that exists: whether If-None-Match lets the request go on (true), or the
 * answer is a 304 (false) because the header is `*` or names the current tag (weakly).
 */
export const noneMatches = (header: string | undefined, tag: string): boolean => !(isAny(header) || namesTag(header, tag));

/** Names a representation's code (its GraphQL document), so a new version of the gateway never matches an old tag. */
export const representationOf = (source: string): string => createHash('sha256').update(source).digest('base64url');
