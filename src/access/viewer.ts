import { forbidden } from '../platform/errors/domain-error';
import { Role } from './role';

/** Who is asking: decoded from a verified access token, carried in every request context. */
export interface Viewer {
  appId: string;
  role: Role;
  insurerId?: string;
  brokerCompanyId?: string;
  jti: string;
  expiresAt: Date;
  /** The client's token generation the token was issued in. */
  tokenGeneration: number;
}

export function assertRole(viewer: Viewer, roles: readonly Role[]): void {
  if (!roles.includes(viewer.role)) {
    throw forbidden(`This operation needs one of the roles ${roles.join(', ')}; this token has role ${viewer.role}`);
  }
}
