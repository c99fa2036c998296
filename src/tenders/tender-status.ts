import { registerEnumType } from 'type-graphql';

export enum TenderStatus {
  QUOTES_AVAILABLE = 'QUOTES_AVAILABLE',
  IN_NEGOTIATION = 'IN_NEGOTIATION',
  IN_COVERNOTE = 'IN_COVERNOTE',
  REOPENED = 'REOPENED',
  SUCCESSFUL = 'SUCCESSFUL',
  CLOSED = 'CLOSED',
}

registerEnumType(TenderStatus, { name: 'TenderStatus', description: 'Tender status (spec 3).' });

export const ALL_STATUSES: readonly TenderStatus[] = Object.values(TenderStatus);
export const OPEN_STATUSES: readonly TenderStatus[] = [
  TenderStatus.QUOTES_AVAILABLE,
  TenderStatus.IN_NEGOTIATION,
  TenderStatus.IN_COVERNOTE,
  TenderStatus.REOPENED,
];

/** `changes_metadata` key stamped when a tender enters `status`. */
export const statusChangeKey = (status: TenderStatus): string => `status_changed_to_${status.toLowerCase()}`;
