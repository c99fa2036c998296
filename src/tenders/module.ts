import { TenderResolver } from './read/tender.resolver';
import { TenderCreationResolver } from './creation/tender-creation.resolver';
import { TenderLifecycleResolver } from './lifecycle/tender-lifecycle.resolver';
import { LineOfBusiness } from './line-of-business.entity';
import { Tender } from './tender.entity';
import { TenderFeed } from './feed/tender-feed.entity';
import { TenderHistoryEntry } from './tender-history-entry.entity';
import { TenderInvitation } from './tender-invitation.entity';

/** What tenders adds to the composition: the schema and the database take it from here. */
export const tendersModule = {
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts). */
  resolvers: [TenderResolver, TenderCreationResolver, TenderLifecycleResolver],
  /** Its entities (the database, src/database.ts). */
  entities: [LineOfBusiness, Tender, TenderFeed, TenderHistoryEntry, TenderInvitation],
};
