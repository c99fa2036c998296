import type { RequestContext } from '../access';
import type { AccessLinks } from '../links';
import type { RiskEventListener } from './risk-events';

/** The request context of the risk operations: who reacts to a submitted assessment or a published set. */
export interface RiskContext extends RequestContext {
  riskEvents: readonly RiskEventListener[];
  /** Capability links: the customer's questionnaire links. */
  links: AccessLinks;
  /** PUBLIC_URL, else the request's own origin: what a link's URL starts with. */
  publicOrigin: string;
}
