import type { RequestContext } from '../access';
import type { TokenStanding } from './token-standing';

/** What the API client mutations need beside the request: this process's token standing, told of changes at once. */
export interface AuthContext extends RequestContext {
  tokenStanding: TokenStanding;
}
