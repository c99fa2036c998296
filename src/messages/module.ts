import { TenderMessageResolver } from './thread/tender-message.resolver';
import { TenderMessage } from './thread/tender-message.entity';
import { OpenQuestionsResolver } from './open-questions/open-questions.resolver';

/** What clarification threads add to the composition: the schema and the database take it from here. */
export const messagesModule = {
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts). */
  resolvers: [TenderMessageResolver, OpenQuestionsResolver],
  /** Its entities (the database, src/database.ts). */
  entities: [TenderMessage],
};
