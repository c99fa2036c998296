import type { EntityManager } from '@mikro-orm/core';
import { scopeOf, type Viewer } from '../access';
import { DomainError, badInput, notFound, type FieldProblem } from '../platform/errors/domain-error';
import { isHttpUrl } from '../platform/validation/rules';
import { ChangeInsurerIntegrationRules, CreateInsurerRules, SetInsurerContactsRules } from './insurer-rules';
import { problemsOf, refused } from '../platform/validation/validate';
import type { UrlAllowList } from '../platform/http/url-allow-list';
import { Insurer, InsurerIntegration, type InsurerContact } from './insurer.entity';

interface CreateInsurerInput {
  name: string;
  /** API (the default): the insurer system implements spec 4.4; MANUAL: its answers are entered through GraphQL. */
  integration?: InsurerIntegration | null;
  /** Required for an API insurer; a MANUAL insurer has none. */
  quoteApiUrl?: string | null;
  outboundCredential?: string | null;
}

export interface ChangeInsurerIntegrationInput {
  insurerId: string;
  integration: InsurerIntegration;
  quoteApiUrl?: string | null;
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
    const integration = input.integration ?? InsurerIntegration.API;
    const problems = problemsOf(CreateInsurerRules, { ...input, name, integration: undefined });
    this.checkAddress(integration, input.quoteApiUrl, problems);
    if (problems.length > 0) throw badInput('The insurer is invalid', problems);
    if (await this.em.count(Insurer, { name })) throw new DomainError('CONFLICT', `An insurer named "${name}" exists already`);
    const insurer = this.em.create(Insurer, {
      name,
      integration,
      quoteApiUrl: input.quoteApiUrl ? input.quoteApiUrl.replace(/\/+$/, '') : null,
      outboundCredential: input.outboundCredential ?? undefined,
      createdAt: new Date(),
    });
    await this.em.flush();
    return insurer;
  }

  /**
   * API ⇄ MANUAL. What changes is how the insurer is asked from now on: requests already under way finish the way
   * they started (an API request in flight keeps the stored address; an AWAITING_MANUAL one is still answered by hand).
   * Becoming API needs a quote API URL (or the one stored); becoming MANUAL keeps the stored address for those requests.
   */
  async changeIntegration(input: ChangeInsurerIntegrationInput): Promise<Insurer> {
    const problems = problemsOf(ChangeInsurerIntegrationRules, { ...input, integration: undefined });
    const insurer = await this.em.findOne(Insurer, { id: input.insurerId });
    if (!insurer) throw notFound(`No insurer has the id ${JSON.stringify(input.insurerId)}`);
    const quoteApiUrl = input.quoteApiUrl ?? (input.integration === InsurerIntegration.API ? insurer.quoteApiUrl : null);
    this.checkAddress(input.integration, quoteApiUrl, problems);
    if (problems.length > 0) throw badInput('The integration is invalid', problems);
    insurer.integration = input.integration;
    if (input.quoteApiUrl) insurer.quoteApiUrl = input.quoteApiUrl.replace(/\/+$/, '');
    if (input.outboundCredential !== undefined && input.outboundCredential !== null) insurer.outboundCredential = input.outboundCredential;
    await this.em.flush();
    return insurer;
  }

  /**
   * Replaces whom the insurer is mailed at. An insurer's client sets its own insurer's contacts only: another
   * insurer is not found, as if it did not exist.
   */
  async setContacts(viewer: Viewer, insurerId: string, contacts: InsurerContact[]): Promise<Insurer> {
    const scope = scopeOf(viewer);
    const insurer = scope.kind === 'insurer' && scope.insurerId !== insurerId ? null : await this.em.findOne(Insurer, { id: insurerId });
    if (!insurer) throw notFound(`No insurer has the id ${JSON.stringify(insurerId)}`);
    const trimmed = contacts.map(({ email, name, language }) => ({ email: email.trim(), name: name.trim(), language }));
    const problems = problemsOf(SetInsurerContactsRules, { contacts: trimmed });
    if (problems.length > 0) throw badInput('The contacts are invalid', problems);
    insurer.contacts = trimmed;
    await this.em.flush();
    return insurer;
  }

  /** An API insurer needs an allowed http(s) quote API URL; a MANUAL one is given none. */
  private checkAddress(integration: InsurerIntegration, quoteApiUrl: string | null | undefined, problems: FieldProblem[]): void {
    if (refused(problems, 'quoteApiUrl')) return;
    if (integration === InsurerIntegration.MANUAL) {
      if (quoteApiUrl) problems.push({ parameter: 'quoteApiUrl', message: 'a MANUAL insurer has no quote API; leave it out' });
      return;
    }
    if (!quoteApiUrl) {
      problems.push({ parameter: 'quoteApiUrl', message: 'is required for an API insurer' });
      return;
    }
    const refusal = this.urlAllowList?.refusal(quoteApiUrl);
    if (!isHttpUrl(quoteApiUrl)) problems.push({ parameter: 'quoteApiUrl', message: 'must be an absolute http(s) URL' });
    else if (refusal) problems.push({ parameter: 'quoteApiUrl', message: `not allowed: ${refusal}` });
  }
}
