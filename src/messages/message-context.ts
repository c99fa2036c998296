import type { RequestContext } from '../access';
import type { MessageEventListener } from './message-events';

/** The request context of the thread operations: who hears of a posted message. */
export interface MessageContext extends RequestContext {
  messageEvents: readonly MessageEventListener[];
}
