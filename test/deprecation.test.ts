import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { announceDeprecation, documentedDeprecation } from '../src/api/rest/deprecation';

describe('a deprecated route', () => {
  it('keeps answering, and announces Deprecation (RFC 9745), Sunset (RFC 8594) and links to the policy and its successor', async () => {
    const app = express();
    const deprecation = { since: '2026-12-01', sunset: '2027-06-01', successor: '/api/v2/tenders' };
    app.get('/api/v1/old', announceDeprecation(deprecation), (_req, res) => res.json({ still: 'works' }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/old`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ still: 'works' });
      expect(response.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
      expect(response.headers.get('sunset')).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
      expect(response.headers.get('link')).toBe(
        '</docs/versioning.md>; rel="deprecation"; type="text/markdown", </api/v2/tenders>; rel="successor-version"',
      );
    } finally {
      server.close();
    }
  });

  it('is marked deprecated in the OpenAPI document, with its sunset and successor said', () => {
    expect(documentedDeprecation({ since: '2026-12-01', sunset: '2027-06-01', successor: '/api/v2/tenders' })).toEqual({
      deprecated: true,
      'x-sunset': '2027-06-01',
      summarySuffix: ' Deprecated since 2026-12-01; removed after 2027-06-01; use /api/v2/tenders.',
    });
    expect(documentedDeprecation(undefined)).toBeUndefined();
  });
});
