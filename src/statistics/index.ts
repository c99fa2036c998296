/** The face of statistics: the GraphQL query of tender statistics. */
export { TenderStatisticsResolver } from './tender-statistics.resolver';
