import type { EntityManager } from '@mikro-orm/core';
import { assertMay, scopeOf, type Viewer } from '../../access';
import { AccessLink, LinkKind, type AccessLinks } from '../../links';
import { DomainError, notFound } from '../../platform/errors/domain-error';
import { InsurerIntegration } from '../../insurers';
import { TenderStatus } from '../../tenders';
import { QuoteRequest } from '../quote-request.entity';
import { QuoteSource } from '../quote-request-status';

/**
 * How long an underwriter's quote page link opens its page (docs/quotation-manual.md): 30 days from the request. A
 * tender states no quote deadline; an answer later than that comes through a renewed link (`renewUnderwritingLink`).
 */
const UNDERWRITING_LINK_DAYS = 30;

const expiryFrom = (now: Date) => new Date(now.getTime() + UNDERWRITING_LINK_DAYS * 86_400_000);

/**
 * The link of a MANUAL insurer's quote request, recorded in the request's transaction (`em`, flushed by the caller):
 * its invitation mail names the link, and the mail's sender derives the URL when it sends.
 */
export function createUnderwritingLink(
  em: EntityManager,
  links: AccessLinks,
  request: { id: string; tenderId: string; createdBy: string },
  now: Date,
): AccessLink {
  return links.create(
    em,
    {
      kind: LinkKind.UNDERWRITING,
      tenderId: request.tenderId,
      quoteRequestId: request.id,
      expiresAt: expiryFrom(now),
      createdBy: request.createdBy,
    },
    now,
  ).link;
}

/**
 * A fresh link to a MANUAL request's quote page, for the insurer's own client (its own requests) or an internal user:
 * the request's earlier links end at once (a link lost or passed on opens nothing more). Not for a CLOSED tender,
 * whose page is gone for insurers (410).
 */
export async function renewUnderwritingLink(
  em: EntityManager,
  viewer: Viewer,
  links: AccessLinks,
  quoteRequestId: string,
  now: Date,
): Promise<AccessLink> {
  assertMay(viewer, 'renewUnderwritingLink');
  const scope = scopeOf(viewer);
  const request = await em.findOne(
    QuoteRequest,
    { id: quoteRequestId, ...(scope.kind === 'insurer' ? { insurer: scope.insurerId } : {}) },
    { populate: ['tender', 'insurer'] },
  );
  if (!request) throw notFound(`No quote request has the id ${JSON.stringify(quoteRequestId)}`);
  const manual = request.source === QuoteSource.MANUAL || request.insurer.integration === InsurerIntegration.MANUAL;
  if (!manual) throw new DomainError('CONFLICT', 'The request went to the insurer system (source API): it has no quote page');
  if (request.tender.status === TenderStatus.CLOSED) throw new DomainError('CONFLICT', 'The tender is closed: its quote page is gone');
  return em.transactional(async (tx) => {
    const earlier = await tx.find(AccessLink, { kind: LinkKind.UNDERWRITING, quoteRequestId: request.id, revokedAt: null });
    for (const link of earlier) link.revokedAt = now;
    const link = createUnderwritingLink(tx, links, { id: request.id, tenderId: request.tender.id, createdBy: viewer.appId }, now);
    await tx.flush();
    return link;
  });
}
