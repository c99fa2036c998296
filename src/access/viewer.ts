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

/**
 * An internal operator acting without a token (the CLI, the demo data): who the records name as `appId`. Its token
 * fields are placeholders; nothing checks them, since no request carries it.
 */
export const operatorViewer = (appId: string): Viewer => ({
  appId,
  role: Role.INTERNAL,
  jti: appId,
  expiresAt: new Date(8.64e15),
  tokenGeneration: 0,
});

export function assertRole(viewer: Viewer, roles: readonly Role[]): void {
  if (!roles.includes(viewer.role)) {
    throw forbidden(`This operation needs one of the roles ${roles.join(', ')}; this token has role ${viewer.role}`);
  }
}
