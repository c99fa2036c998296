import type { MikroORM } from '@mikro-orm/core';
import type { PeriodicTask } from '../platform/tasks/periodic-task';
import type { TenderChangeListener } from '../tenders';
import type { DocumentServices } from './document-context';
import { sweepDocuments } from './document.service';
import { policyDocumentCheck } from './policy-document-check';
import { DocumentResolver, TenderDocumentsResolver } from './document.resolver';
import { AdviceResolver } from './advice/advice.resolver';
import { Document } from './document.entity';
import { DocumentRemoval } from './document-removal.entity';

/** What documents add to the composition (createApp). */
export const documentsModule = {
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts). */
  resolvers: [DocumentResolver, TenderDocumentsResolver, AdviceResolver],
  /** Its entities (the database, src/database.ts). */
  entities: [Document, DocumentRemoval],
  /** A policy documentation is confirmed only with a POLICY document of the tender whose bytes arrived. */
  tenderChanges: [policyDocumentCheck] as readonly TenderChangeListener[],

  /**
   * The document sweep, every DOCUMENT_LINK_TTL on every instance: unfinished uploads (and bytes of deleted documents)
   * leave nothing behind for long: expired slots, their bytes, stale temporary files.
   */
  tasks(orm: MikroORM, documents: DocumentServices): PeriodicTask[] {
    return [
      {
        name: 'document sweep',
        everyMs: documents.linkTtlMs,
        allInstances: true,
        run: (now) => sweepDocuments(orm.em.fork(), documents, now),
      },
    ];
  },
};
