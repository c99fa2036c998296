import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { badInput, type FieldProblem } from '../errors/domain-error';
import { Insurer } from '../insurers/insurer.entity';
import { BrokerCompany } from '../parties/broker-company.entity';
import { ApiClient } from './api-client.entity';
import { ROLES, Role } from './role';
import { generateSecret, hashSecret } from './secret-hash';

export interface CreateApiClientInput {
  role: Role;
  insurerId?: string | null;
  brokerCompanyId?: string | null;
  description?: string | null;
  /** Fixed credentials, for the documented demo clients only. */
  appId?: string;
  secret?: string;
}

export interface CreatedApiClient {
  client: ApiClient;
  /** Shown once: only its scrypt hash is stored. */
  secret: string;
}

export class ApiClientService {
  constructor(private readonly em: EntityManager) {}

  async create(input: CreateApiClientInput): Promise<CreatedApiClient> {
    const problems: FieldProblem[] = [];
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
    if ((input.description ?? '').length > 200) problems.push({ parameter: 'description', message: 'must be at most 200 characters' });
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
    return { client, secret };
  }
}
