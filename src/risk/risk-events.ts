import type { EntityManager } from '@mikro-orm/core';
import type { TenderStatus } from '../tenders';

/** What the risk assessment reports, inside the transaction that did it: webhooks announce, quotes act, mail mails. */
type RiskEvent =
  | {
      kind: 'assessmentSubmitted';
      tenderId: string;
      tenderStatus: TenderStatus;
      brokerCompanyId: string;
      product: string;
      questionSetVersion: number;
      answers: Record<string, unknown>;
      at: Date;
    }
  | { kind: 'questionSetPublished'; product: string; version: number; breaking: boolean; insurerIds: readonly string[]; at: Date }
  | {
      /** A questionnaire link to be mailed to the customer: mail records the mail, naming the link, never its token. */
      kind: 'questionnaireLinkCreated';
      linkId: string;
      tenderId: string;
      email: string;
      language: 'de' | 'en';
      /** PUBLIC_URL or the origin the broker reached the gateway at: what the mailed URL starts with. */
      origin: string;
      at: Date;
    };

export type RiskEventListener = (tx: EntityManager, event: RiskEvent) => Promise<void>;
