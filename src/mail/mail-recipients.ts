import type { EntityManager } from '@mikro-orm/core';
import { Insurer, InsurerIntegration } from '../insurers';
import { Tender } from '../tenders';
import type { MailRecipient } from './mail-outbox';

/** The tender as a mail names it, and its person in charge: mailed in the person's language, German when none is set. */
export async function tenderAndPersonInCharge(
  em: EntityManager,
  tenderId: string,
): Promise<{ tender: { id: string; product: string }; personInCharge: MailRecipient[] } | null> {
  const tender = await em.findOne(Tender, { id: tenderId }, { populate: ['personInCharge'] });
  if (!tender) return null;
  const person = tender.personInCharge;
  // An erased person in charge keeps no address to mail.
  const valid = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(person.email);
  const name = [person.firstName, person.lastName].filter(Boolean).join(' ');
  return {
    tender: { id: tender.id, product: tender.product },
    personInCharge: valid ? [{ email: person.email, name, language: person.language ?? 'de' }] : [],
  };
}

/** An insurer's contacts, and whether it answers through the gateway (MANUAL). */
export async function insurerContacts(
  em: EntityManager,
  insurerId: string,
): Promise<{ name: string; manual: boolean; contacts: MailRecipient[] } | null> {
  const insurer = await em.findOne(Insurer, { id: insurerId });
  if (!insurer) return null;
  return { name: insurer.name, manual: insurer.integration === InsurerIntegration.MANUAL, contacts: insurer.contacts };
}
