/** The face of clarification threads: one per tender and invited insurer (docs/people.md). */
export { TenderMessage } from './thread/tender-message.entity';
export type { MessageContext } from './message-context';
export type { MessageEventListener } from './message-events';
// personal-data/: the messages' part of a customer's personal data (privacy erases and exports it)
export { messagePersonalData } from './personal-data/message-personal-data';
// module.ts: what the composition (the schema, the database) takes of the feature
export { messagesModule } from './module';
