import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { ApiClientResolver } from '../../auth';
import { InsurerResolver } from '../../insurers';
import {
  InsurerCheckResolver,
  ManualQuoteResolver,
  ProposalFieldsResolver,
  ProposalResolver,
  QuoteRequestFieldsResolver,
  QuoteResolver,
} from '../../quotes';
import { TenderStatisticsResolver } from '../../statistics';
import { TenderCreationResolver, TenderLifecycleResolver, TenderResolver } from '../../tenders';
import { WebhookResolver } from '../../webhooks';
import { AdviceResolver, DocumentResolver, TenderDocumentsResolver } from '../../documents';
import { AccessLogResolver, CustomerErasureResolver, CustomerExportResolver } from '../../privacy';
import { authChecker } from './auth-checker';
import { noteCarriedOutMutations } from './carried-out';
import { VERSION } from '../../platform/version';

let built: Promise<GraphQLSchema> | undefined;

/** The schema is the same for every app in the process; build it once. */
export function gatewaySchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: [
      TenderResolver,
      TenderCreationResolver,
      TenderLifecycleResolver,
      InsurerResolver,
      ApiClientResolver,
      QuoteResolver,
      ProposalResolver,
      ProposalFieldsResolver,
      QuoteRequestFieldsResolver,
      TenderStatisticsResolver,
      InsurerCheckResolver,
      ManualQuoteResolver,
      WebhookResolver,
      DocumentResolver,
      AdviceResolver,
      TenderDocumentsResolver,
      AccessLogResolver,
      CustomerExportResolver,
      CustomerErasureResolver,
    ],
    authChecker,
    authMode: 'error',
    validate: false,
  }).then((schema) =>
    noteCarriedOutMutations(new GraphQLSchema({ ...schema.toConfig(), description: `Tender Exchange gateway ${VERSION}` })),
  );
  return built;
}

/** The SDL committed as `schema.graphql`. */
export async function schemaSdl(): Promise<string> {
  return `${printSchema(lexicographicSortSchema(await gatewaySchema()))}\n`;
}
