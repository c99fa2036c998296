import type { RequestContext } from '../../access';
import type { TenderChangeListener } from './tender-lifecycle.service';

/** The request context of the tender operations: who reacts to a status change inside its transaction. */
export interface TenderContext extends RequestContext {
  tenderChanges: readonly TenderChangeListener[];
}
