import { ApiClient } from '../auth/api-client.entity';
import { RevokedToken } from '../auth/revoked-token.entity';
import { RateLimitCounter } from '../http/rate-limit-counter.entity';
import { Insurer } from '../insurers/insurer.entity';
import { EarlyCallback } from '../quotes/early-callback.entity';
import { QuoteOption } from '../quotes/quote-option.entity';
import { QuoteRequest } from '../quotes/quote-request.entity';
import { Address } from '../parties/address.embeddable';
import { BrokerCompany } from '../parties/broker-company.entity';
import { Customer } from '../parties/customer.entity';
import { Person } from '../parties/person.entity';
import { LineOfBusiness } from '../tenders/line-of-business.entity';
import { TenderHistoryEntry } from '../tenders/tender-history-entry.entity';
import { TenderInvitation } from '../tenders/tender-invitation.entity';
import { Tender } from '../tenders/tender.entity';

export const entities = [
  Address,
  ApiClient,
  BrokerCompany,
  Customer,
  EarlyCallback,
  Insurer,
  LineOfBusiness,
  Person,
  QuoteOption,
  QuoteRequest,
  RateLimitCounter,
  RevokedToken,
  Tender,
  TenderHistoryEntry,
  TenderInvitation,
];
