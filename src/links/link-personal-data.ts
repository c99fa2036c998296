import { ERASED, groupedBy, type PersonalData } from '../parties';
import { AccessLink } from './access-link.entity';

/**
 * The links' part of a customer's personal data: the address a link was mailed to. The erasure empties it and ends
 * every link of the customer's tenders (nothing of an erased customer is answered through a page any more); the export
 * shows each tender's links with their address.
 */
export const linkPersonalData: PersonalData = {
  fields: [{ entity: 'AccessLink', property: 'email' }],
  async erase(tx, scope) {
    const links = await tx.find(AccessLink, { tenderId: { $in: scope.tenders.map((tender) => tender.id) } });
    for (const link of links) {
      if (link.email) link.email = ERASED;
      link.revokedAt ??= scope.at;
    }
    await tx.flush();
    return {};
  },
  async export(em, scope) {
    const links = await em.find(
      AccessLink,
      { tenderId: { $in: [...scope.tenderIds] } },
      { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
    );
    const linksOf = groupedBy(links, (link) => link.tenderId);
    return {
      tenders: new Map(
        scope.tenderIds.map((tenderId) => [
          tenderId,
          {
            access_links: linksOf(tenderId).map((link) => ({
              _id: link.id,
              kind: link.kind,
              email: link.email ?? null,
              language: link.language ?? null,
              expires_at: link.expiresAt.toISOString(),
              revoked_at: link.revokedAt?.toISOString() ?? null,
              created_at: link.createdAt.toISOString(),
            })),
          },
        ]),
      ),
    };
  },
};
