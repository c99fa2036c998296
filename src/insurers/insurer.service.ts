import type { EntityManager } from '@mikro-orm/core';
import { scopeOf } from '../access/access-policy';
import type { Viewer } from '../access/viewer';
import { DomainError, badInput, type FieldProblem } from '../platform/errors/domain-error';
import type { UrlAllowList } from '../platform/http/url-allow-list';
import { Insurer } from './insurer.entity';

export interface CreateInsurerInput {
  name: string;
  quoteApiUrl: string;
  outboundCredential?: string | null;
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export class InsurerService {
  constructor(
    private readonly em: EntityManager,
    /** INSURER_URL_ALLOW; the client checks it again at every call, on the resolved addresses. */
    private readonly urlAllowList?: UrlAllowList,
  ) {}

  /** Insurers see only themselves; every other role sees all (brokers choose whom to invite). */
  list(viewer: Viewer): Promise<Insurer[]> {
    const scope = scopeOf(viewer);
    const where = scope.kind === 'insurer' ? { id: scope.insurerId } : {};
    return this.em.find(Insurer, where, { orderBy: { name: 'asc', id: 'asc' } });
  }

  async create(input: CreateInsurerInput): Promise<Insurer> {
    const name = input.name.trim();
    const problems: FieldProblem[] = [];
    if (name.length === 0 || name.length > 200) problems.push({ parameter: 'name', message: 'must be 1 to 200 characters' });
    const refusal = this.urlAllowList?.refusal(input.quoteApiUrl);
    if (input.quoteApiUrl.length > 2048 || !isHttpUrl(input.quoteApiUrl)) {
      problems.push({ parameter: 'quoteApiUrl', message: 'must be an absolute http(s) URL' });
    } else if (refusal) {
      problems.push({ parameter: 'quoteApiUrl', message: `not allowed: ${refusal}` });
    }
    if (input.outboundCredential !== undefined && input.outboundCredential !== null && input.outboundCredential.length > 2048) {
      problems.push({ parameter: 'outboundCredential', message: 'must be at most 2048 characters' });
    }
    if (problems.length > 0) throw badInput('The insurer is invalid', problems);
    if (await this.em.count(Insurer, { name })) throw new DomainError('CONFLICT', `An insurer named "${name}" exists already`);
    const insurer = this.em.create(Insurer, {
      name,
      quoteApiUrl: input.quoteApiUrl.replace(/\/+$/, ''),
      outboundCredential: input.outboundCredential ?? undefined,
      createdAt: new Date(),
    });
    await this.em.flush();
    return insurer;
  }
}
