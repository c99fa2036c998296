import { InsurerResolver } from './insurer.resolver';
import { Insurer } from './insurer.entity';

/** What insurers adds to the composition: the schema and the database take it from here. */
export const insurersModule = {
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts). */
  resolvers: [InsurerResolver],
  /** Its entities (the database, src/database.ts). */
  entities: [Insurer],
};
