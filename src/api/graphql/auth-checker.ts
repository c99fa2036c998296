import type { AuthChecker } from 'type-graphql';
import type { Role } from '../../access/role';
import { assertRole } from '../../access/viewer';
import type { RequestContext } from '../../access/request-context';

/** `@Authorized(Role.X, ...)` on a resolver: any other role gets FORBIDDEN with the roles named. */
export const authChecker: AuthChecker<RequestContext, Role> = ({ context }, roles) => {
  assertRole(context.viewer, roles);
  return true;
};
