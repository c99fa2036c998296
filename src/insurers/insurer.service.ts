import type { EntityManager } from '@mikro-orm/core';
import { scopeOf, type Viewer } from '../access';
import { DomainError, badInput } from '../platform/errors/domain-error';
import { isHttpUrl } from '../platform/validation/rules';
import { CreateInsurerRules } from './insurer-rules';
import { problemsOf, refused } from '../platform/validation/validate';
import type { UrlAllowList } from '../platform/http/url-allow-list';
import { Insurer } from './insurer.entity';

interface CreateInsurerInput {
  name: string;
  quoteApiUrl: string;
  outboundCredential?: string | null;
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
    const problems = problemsOf(CreateInsurerRules, { ...input, name });
    if (!refused(problems, 'quoteApiUrl')) {
      const refusal = this.urlAllowList?.refusal(input.quoteApiUrl);
      if (!isHttpUrl(input.quoteApiUrl)) problems.push({ parameter: 'quoteApiUrl', message: 'must be an absolute http(s) URL' });
      else if (refusal) problems.push({ parameter: 'quoteApiUrl', message: `not allowed: ${refusal}` });
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
