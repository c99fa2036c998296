import type { EntityManager } from '@mikro-orm/core';
import type { TenderStatus } from '../tenders';

/** A message posted in a thread, reported inside its transaction: webhooks announce it (ids only). */
interface MessagePosted {
  kind: 'messagePosted';
  messageId: string;
  tenderId: string;
  tenderStatus: TenderStatus;
  brokerCompanyId: string;
  insurerId: string;
  /** Who wrote it: the author's role (`insurer`, `broker`, `internal`). */
  authorRole: string;
  /** Whether it asks for information. */
  requestsInformation: boolean;
  /** Whether the thread's insurer may still see the tender's thread (not once the tender is redacted for it). */
  insurerSees: boolean;
  at: Date;
}

export type MessageEventListener = (tx: EntityManager, event: MessagePosted) => Promise<void>;
