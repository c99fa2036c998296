import type { EntityManager } from '@mikro-orm/core';
import type { Knex, SqlEntityManager } from '@mikro-orm/knex';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { TimestampScalar } from '../platform/validation/timestamp';
import { assertMay, type Viewer } from '../access';
import { badInput } from '../platform/errors/domain-error';
import { Insurer } from '../insurers';
import { DEFAULT_CURRENCY, QuoteRequestStatus, QuoteSource } from '../quotes';
import { LineOfBusiness, TenderStatus } from '../tenders';

@ObjectType('StatusCount')
class StatusCount {
  @Field(() => TenderStatus)
  status!: TenderStatus;

  @Field(() => Int)
  count!: number;
}

@ObjectType('LineOfBusinessCount')
class LineOfBusinessCount {
  @Field(() => LineOfBusiness)
  lineOfBusiness!: LineOfBusiness;

  @Field(() => Int)
  count!: number;
}

@ObjectType('InsurerQuoteStatistics')
class InsurerQuoteStatistics {
  @Field(() => Insurer)
  insurer!: Insurer;

  @Field(() => Int, { description: 'Quote requests sent to the insurer for tenders of the period.' })
  requests!: number;

  @Field(() => Int, { description: 'Of those, answered with a quote (expired since, or not) or a decline.' })
  responses!: number;

  @Field(() => Int, { description: 'Of the responses, those the insurer system sent (source API).' })
  apiResponses!: number;

  @Field(() => Int, { description: 'Of the responses, those entered through GraphQL for an insurer without an API (source MANUAL).' })
  manualResponses!: number;

  @Field(() => Float, { description: 'responses / requests, 0 to 1.' })
  responseRate!: number;

  @Field(() => Float, { nullable: true, description: 'Median seconds from the request to the stored answer.' })
  medianResponseSeconds!: number | null;
}

@ObjectType('PremiumDistribution', {
  description: 'Premiums (without tax) of all quote options, per line of business and currency (never mixed).',
})
class PremiumDistribution {
  @Field(() => LineOfBusiness)
  lineOfBusiness!: LineOfBusiness;

  @Field(() => String, { description: 'ISO 4217.' })
  currency!: string;

  @Field(() => Int)
  options!: number;

  @Field(() => Float)
  min!: number;

  @Field(() => Float)
  p25!: number;

  @Field(() => Float)
  median!: number;

  @Field(() => Float)
  p75!: number;

  @Field(() => Float)
  max!: number;
}

@ObjectType('TenderStatistics', { description: 'Over the tenders created in [from, to).' })
export class TenderStatistics {
  @Field(() => TimestampScalar, { nullable: true })
  from!: Date | null;

  @Field(() => TimestampScalar, { nullable: true })
  to!: Date | null;

  @Field(() => Int)
  tenders!: number;

  @Field(() => [StatusCount])
  byStatus!: StatusCount[];

  @Field(() => [LineOfBusinessCount])
  byLineOfBusiness!: LineOfBusinessCount[];

  @Field(() => [InsurerQuoteStatistics])
  insurers!: InsurerQuoteStatistics[];

  @Field(() => [PremiumDistribution])
  premiums!: PremiumDistribution[];
}

/** Linear interpolation between closest ranks (the usual "type 7" quantile) of sorted values. */
function quantile(sorted: number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

const RESPONDED = [QuoteRequestStatus.QUOTED, QuoteRequestStatus.DECLINED, QuoteRequestStatus.EXPIRED];

/** The rows of the statistics' statements, as both engines give them (counts are strings on PostgreSQL). */
interface StatusCountRow {
  status: TenderStatus;
  count: number | string;
}
interface LineCountRow {
  id: string;
  count: number | string;
}
interface QuoteRequestRow {
  insurer_id: string;
  status: QuoteRequestStatus;
  source: QuoteSource;
  created_at: Date | number;
  quoted_at: Date | number | null;
}
interface PremiumRow {
  id: string;
  currency: string | null;
  premium: number;
}

/** Aggregates for analysts: counts grouped in SQL; medians and quantiles computed over the period's rows. */
export async function tenderStatistics(em: EntityManager, viewer: Viewer, from?: Date | null, to?: Date | null): Promise<TenderStatistics> {
  assertMay(viewer, 'tenderStatistics');
  if (from && to && from >= to) throw badInput('The period is empty', [{ parameter: 'to', message: 'must lie after from' }]);
  const knex = (em as SqlEntityManager).getKnex();
  const platform = em.getPlatform();
  // knex's builders give untyped rows: each statement's rows are typed here, once.
  const rowsInPeriod = async <Row>(query: Knex.QueryBuilder): Promise<Row[]> => {
    if (from) query.where('t.created_at', '>=', platform.processDateProperty(from) as never);
    if (to) query.where('t.created_at', '<', platform.processDateProperty(to) as never);
    return (await query) as Row[];
  };
  const [byStatus, byLine, requests, premiums] = await Promise.all([
    rowsInPeriod<StatusCountRow>(knex('tender as t').select('t.status').count({ count: '*' }).groupBy('t.status')),
    rowsInPeriod<LineCountRow>(
      knex('tender as t').select('t.line_of_business_id as id').count({ count: '*' }).groupBy('t.line_of_business_id'),
    ),
    rowsInPeriod<QuoteRequestRow>(
      knex('quote_request as q')
        .join('tender as t', 't.id', 'q.tender_id')
        .select('q.insurer_id', 'q.status', 'q.source', 'q.created_at', 'q.quoted_at'),
    ),
    rowsInPeriod<PremiumRow>(
      knex('quote_option as o')
        .join('quote_request as q', 'q.id', 'o.quote_request_id')
        .join('tender as t', 't.id', 'q.tender_id')
        .where('q.status', QuoteRequestStatus.QUOTED)
        .select('t.line_of_business_id as id', 'q.currency', 'o.premium')
        .orderBy('o.premium'),
    ),
  ]);
  const lines = new Map((await em.find(LineOfBusiness, {})).map((line) => [line.id, line]));
  const insurers = new Map((await em.find(Insurer, {})).map((insurer) => [insurer.id, insurer]));

  const perInsurer = new Map<string, { requests: number; seconds: number[]; manual: number }>();
  for (const row of requests) {
    const entry = perInsurer.get(row.insurer_id) ?? { requests: 0, seconds: [], manual: 0 };
    entry.requests++;
    if (RESPONDED.includes(row.status) && row.quoted_at !== null) {
      entry.seconds.push((new Date(row.quoted_at).getTime() - new Date(row.created_at).getTime()) / 1000);
      if (row.source === QuoteSource.MANUAL) entry.manual++;
    }
    perInsurer.set(row.insurer_id, entry);
  }
  // Premiums in different currencies are never one distribution.
  const perLine = new Map<string, { id: string; currency: string; values: number[] }>();
  for (const row of premiums) {
    const currency = row.currency ?? DEFAULT_CURRENCY;
    const key = `${row.id}|${currency}`;
    const entry = perLine.get(key) ?? { id: row.id, currency, values: [] };
    entry.values.push(Number(row.premium));
    perLine.set(key, entry);
  }

  return {
    from: from ?? null,
    to: to ?? null,
    tenders: byStatus.reduce((sum, row) => sum + Number(row.count), 0),
    byStatus: byStatus.map((row) => ({ status: row.status, count: Number(row.count) })).sort((a, b) => a.status.localeCompare(b.status)),
    byLineOfBusiness: byLine
      .map((row) => ({ lineOfBusiness: lines.get(row.id)!, count: Number(row.count) }))
      .sort((a, b) => a.lineOfBusiness.name.localeCompare(b.lineOfBusiness.name)),
    insurers: [...perInsurer]
      .map(([id, entry]) => {
        const seconds = [...entry.seconds].sort((a, b) => a - b);
        return {
          insurer: insurers.get(id)!,
          requests: entry.requests,
          responses: seconds.length,
          apiResponses: seconds.length - entry.manual,
          manualResponses: entry.manual,
          responseRate: seconds.length / entry.requests,
          medianResponseSeconds: seconds.length ? quantile(seconds, 0.5) : null,
        };
      })
      .sort((a, b) => a.insurer.name.localeCompare(b.insurer.name)),
    premiums: [...perLine.values()]
      .map(({ id, currency, values }) => ({
        lineOfBusiness: lines.get(id)!,
        currency,
        options: values.length,
        min: values[0],
        p25: quantile(values, 0.25),
        median: quantile(values, 0.5),
        p75: quantile(values, 0.75),
        max: values[values.length - 1],
      }))
      .sort((a, b) => a.lineOfBusiness.name.localeCompare(b.lineOfBusiness.name) || a.currency.localeCompare(b.currency)),
  };
}
