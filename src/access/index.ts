/** The face of access: the roles, the viewer a token stands for, the one access policy and what a request carries. */
export {
  Allowed,
  actsAsWinner,
  assertMay,
  may,
  mayAddDocument,
  rolesFor,
  scopeOf,
  sees,
  seesDocument,
  type Operation,
  type Scope,
} from './access-policy';
export type { RequestContext } from './request-context';
export { AccessSurface, NO_ACCESS_RECORDS, recordRead, type AccessChannel, type AccessRecorder } from './access-recorder';
export { ROLES, Role } from './role';
export { assertRole, operatorViewer, type Viewer } from './viewer';
