import type { RequestHandler } from 'express';

/** A route on its way out (docs/versioning.md): when it was deprecated, when it goes, and what replaces it. */
export interface Deprecation {
  /** ISO 8601 date the route was deprecated. */
  since: string;
  /** ISO 8601 date after which the route may answer 410; at least six months after `since`. */
  sunset: string;
  /** The path that replaces it, if one does. */
  successor?: string;
}

const POLICY = '/docs/versioning.md';

/**
 * Announces a deprecated route on every answer: `Deprecation` (RFC 9745, the moment as `@<epoch seconds>`),
 * `Sunset` (RFC 8594, an HTTP date) and `Link`s to the policy and the successor. The route itself keeps working
 * unchanged until its sunset.
 */
export function announceDeprecation({ since, sunset, successor }: Deprecation): RequestHandler {
  const links = [`<${POLICY}>; rel="deprecation"; type="text/markdown"`, ...(successor ? [`<${successor}>; rel="successor-version"`] : [])];
  const headers = {
    Deprecation: `@${Math.floor(Date.parse(since) / 1000)}`,
    Sunset: new Date(sunset).toUTCString(),
    Link: links.join(', '),
  };
  return (_req, res, next) => {
    res.set(headers);
    next();
  };
}

/** The OpenAPI operation's flag and the sentence that says when and what instead. */
export const documentedDeprecation = (deprecation: Deprecation | undefined) =>
  deprecation
    ? {
        deprecated: true,
        'x-sunset': deprecation.sunset,
        summarySuffix: ` Deprecated since ${deprecation.since}; removed after ${deprecation.sunset}${deprecation.successor ? `; use ${deprecation.successor}` : ''}.`,
      }
    : undefined;
