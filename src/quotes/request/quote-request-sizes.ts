import type { EntityManager } from '@mikro-orm/core';
import type { Viewer } from '../../access';
import { Tender, visibleTenders } from '../../tenders';

/** What a tender's quote requests hold, as stored: how many, and the largest risk information among them (bytes). */
export interface StoredQuoteSizes {
  requests: number;
  largestRiskInformationBytes: number;
}

/**
 * The stored sizes of the quote requests of those of `tenderIds` the viewer may see (its other tenders are left out:
 * what another party's tender holds is not told, not even through a price). Two indexed statements, whatever the
 * tenders hold: the sizes are kept beside each request's risk information when it is written.
 */
export async function storedQuoteSizes(
  em: EntityManager,
  viewer: Viewer,
  tenderIds: readonly string[],
): Promise<Map<string, StoredQuoteSizes>> {
  const sizes = new Map<string, StoredQuoteSizes>();
  if (tenderIds.length === 0) return sizes;
  const visible = await em.find(Tender, { $and: [{ id: { $in: [...tenderIds] } }, visibleTenders(viewer)] }, { fields: ['id'] });
  if (visible.length === 0) return sizes;
  for (const tender of visible) sizes.set(tender.id, { requests: 0, largestRiskInformationBytes: 0 });
  const rows = (await em.getConnection().execute(
    `select tender_id, count(*) as requests, max(risk_information_bytes) as largest from quote_request
      where tender_id in (${visible.map(() => '?').join(', ')}) group by tender_id`,
    visible.map((tender) => tender.id),
    'all',
  )) as { tender_id: string; requests: number | string; largest: number | string | null }[];
  for (const row of rows)
    sizes.set(row.tender_id, { requests: Number(row.requests), largestRiskInformationBytes: Number(row.largest ?? 0) });
  return sizes;
}
