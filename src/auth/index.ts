/** The face of auth: API clients and their tokens. */
export { ApiClient } from './api-client.entity';
export { ApiClientService } from './api-client.service';
export type { AuthContext } from './auth-context';
export { TokenRequestBody } from './auth-rules';
export { withJwtSecret } from './jwt-secret';
export { TokenService } from './token.service';
// module.ts: what the composition (createApp) takes of auth: its resolvers, entities and periodic tasks
export { authModule } from './module';
