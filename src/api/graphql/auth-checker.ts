import type { AuthChecker } from 'type-graphql';
import { type Role, assertRole, type RequestContext } from '../../access';

/** `@Authorized(Role.X, ...)` on a resolver: any other role gets FORBIDDEN with the roles named. */
export const authChecker: AuthChecker<RequestContext, Role> = ({ context }, roles) => {
  assertRole(context.viewer, roles);
  return true;
};
