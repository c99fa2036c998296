/** The face of auth: API clients and their tokens. */
export { ApiClient } from './api-client.entity';
export { ApiClientResolver } from './api-client.resolver';
export { ApiClientService } from './api-client.service';
export type { AuthContext } from './auth-context';
export { TokenRequestBody } from './auth-rules';
export { withJwtSecret } from './jwt-secret';
export { RevokedToken } from './revoked-token.entity';
export { TokenService } from './token.service';
