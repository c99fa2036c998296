/** The face of statistics: the GraphQL query of tender statistics. */
// module.ts: what the composition (the schema, the database) takes of the feature
export { statisticsModule } from './module';
