import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { badInput, notFound } from '../platform/errors/domain-error';
import { CreateApiClientRules } from './auth-rules';
import { problemsOf } from '../platform/validation/validate';
import { Insurer } from '../insurers';
import { BrokerCompany } from '../parties';
import { ApiClient } from './api-client.entity';
import { ROLES, Role } from '../access';
import { generateSecret, hashSecret } from './secret-hash';
import { announce } from './standing-notices';
import type { TokenStanding } from './token-standing';

interface CreateApiClientInput {
  role: Role;
  insurerId?: string | null;
  brokerCompanyId?: string | null;
  description?: string | null;
  /** Fixed credentials, for the documented demo clients only. */
  appId?: string;
  secret?: string;
}

interface CreatedApiClient {
  client: ApiClient;
  /** Shown once: only its scrypt hash is stored. */
  secret: string;
}

export class ApiClientService {
  /** `standing`: this process's token standing, told of changes at once (absent in the CLI, a process of its own). */
  constructor(
    private readonly em: EntityManager,
    private readonly standing?: TokenStanding,
  ) {}

  async create(input: CreateApiClientInput): Promise<CreatedApiClient> {
    const problems = problemsOf(CreateApiClientRules, input);
    if (!ROLES.includes(input.role)) problems.push({ parameter: 'role', message: `must be one of ${ROLES.join(', ')}` });
    const insurer = input.insurerId ? await this.em.findOne(Insurer, { id: input.insurerId }) : null;
    const brokerCompany = input.brokerCompanyId ? await this.em.findOne(BrokerCompany, { id: input.brokerCompanyId }) : null;
    if (input.insurerId && !insurer) problems.push({ parameter: 'insurerId', message: 'no insurer has this id' });
    if (input.brokerCompanyId && !brokerCompany) problems.push({ parameter: 'brokerCompanyId', message: 'no broker company has this id' });
    if (input.role === Role.INSURER && !input.insurerId) problems.push({ parameter: 'insurerId', message: 'required for role insurer' });
    if (input.role === Role.BROKER && !input.brokerCompanyId) {
      problems.push({ parameter: 'brokerCompanyId', message: 'required for role broker' });
    }
    if (input.role !== Role.INSURER && input.insurerId) problems.push({ parameter: 'insurerId', message: 'only for role insurer' });
    if (input.role !== Role.BROKER && input.brokerCompanyId) {
      problems.push({ parameter: 'brokerCompanyId', message: 'only for role broker' });
    }
    if (problems.length > 0) throw badInput('The API client is invalid', problems);

    const secret = input.secret ?? generateSecret();
    const client = this.em.create(ApiClient, {
      appId: input.appId ?? `${input.role}-${randomBytes(8).toString('hex')}`,
      secretHash: await hashSecret(secret),
      role: input.role,
      insurer: insurer ?? undefined,
      brokerCompany: brokerCompany ?? undefined,
      description: input.description ?? '',
      createdAt: new Date(),
    });
    await this.em.flush();
    await this.changed(client);
    return { client, secret };
  }

  /** Refuses the client's tokens at once here, on the other instances within the token standing's bound, and issues it no new ones until enabled. */
  async disable(appId: string): Promise<ApiClient> {
    const client = await this.find(appId);
    if (!client.disabledAt) {
      client.disabledAt = new Date();
      // Enabling again must not bring the old tokens back.
      client.tokenGeneration += 1;
      await this.em.flush();
      await this.changed(client);
    }
    return client;
  }

  /** Issues tokens again; those issued before it was disabled stay refused. */
  async enable(appId: string): Promise<ApiClient> {
    const client = await this.find(appId);
    client.disabledAt = null;
    await this.em.flush();
    await this.changed(client);
    return client;
  }

  /**
   * A new secret (shown once); the old one stops working at once. The client's tokens stay valid until they
   * expire, so it can switch without a gap, unless `revokeTokens` says the old secret leaked.
   */
  async rotateSecret(appId: string, revokeTokens: boolean): Promise<CreatedApiClient> {
    const client = await this.find(appId);
    const secret = generateSecret();
    client.secretHash = await hashSecret(secret);
    if (revokeTokens) client.tokenGeneration += 1;
    await this.em.flush();
    await this.changed(client);
    return { client, secret };
  }

  /** After the commit: this process refuses accordingly at once, the other instances within their bound. */
  private async changed(client: ApiClient): Promise<void> {
    const disabled = Boolean(client.disabledAt);
    this.standing?.apply(client.appId, disabled, client.tokenGeneration);
    await announce(this.em, { client: client.appId, disabled, gen: client.tokenGeneration });
  }

  private async find(appId: string): Promise<ApiClient> {
    const client = await this.em.findOne(ApiClient, { appId }, { populate: ['insurer', 'brokerCompany'] });
    if (!client) throw notFound(`No API client has the app_id ${appId}`);
    return client;
  }
}
