import { AccessLink } from './access-link.entity';

/** What capability links add to the composition: the database takes their entity from here. */
export const linksModule = {
  /** Its entities (the database, src/database.ts). */
  entities: [AccessLink],
};
