import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema, type NonEmptyArray } from 'type-graphql';
import { authModule } from '../../auth';
import { insurersModule } from '../../insurers';
import { quotesModule } from '../../quotes';
import { statisticsModule } from '../../statistics';
import { tendersModule } from '../../tenders';
import { webhooksModule } from '../../webhooks';
import { documentsModule } from '../../documents';
import { privacyModule } from '../../privacy';
import { riskModule } from '../../risk';
import { messagesModule } from '../../messages';
import { mailModule } from '../../mail';
import { authChecker } from './auth-checker';
import { noteCarriedOutMutations } from './carried-out';
import { VERSION } from '../../platform/version';

let built: Promise<GraphQLSchema> | undefined;

/** The schema is the same for every app in the process; build it once. */
export function gatewaySchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: [
      ...tendersModule.resolvers,
      ...insurersModule.resolvers,
      ...authModule.resolvers,
      ...riskModule.resolvers,
      ...quotesModule.resolvers,
      ...statisticsModule.resolvers,
      ...documentsModule.resolvers,
      ...messagesModule.resolvers,
      ...privacyModule.resolvers,
      ...webhooksModule.resolvers,
      ...mailModule.resolvers,
    ] as NonEmptyArray<new (...args: never[]) => object>,
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
