import { TenderStatisticsResolver } from './tender-statistics.resolver';

/** What statistics adds to the composition: the schema and the database take it from here. */
export const statisticsModule = {
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts). */
  resolvers: [TenderStatisticsResolver],
};
