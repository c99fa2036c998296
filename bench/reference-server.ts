import { createServer, type ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
import jwt from 'jsonwebtoken';
// Quotes first: the tender entity and the quote entities import each other, and loaded from tenders' front door first,
// quotes' statuses would read it half-built. Only the tender's declaration is used, at start; no request uses the ORM.
import '../src/quotes';
import { TENDER_FIELD_LIST, representationOf, type TenderStatus } from '../src/tenders';

/**
 * The benchmark's reference: the closest thing to the limit of one Node process on this data (DESIGN 6).
 * `node:http` and `better-sqlite3` with statements prepared once, the gateway's SQL shape (the page's ids from the
 * tender table's indexes, then its relations), the same JSON byte for byte (bench/run.ts checks before timing; the
 * columns, names and order come from the tender's declaration, src/tenders/shape/), and the same authentication:
 * the JWT verified and its client's standing read. No framework, no GraphQL, no ORM.
 * It answers an internal token (every tender, in full) on `GET /api/v1/tenders?limit=&skip=` (with the `next` cursor)
 * and `GET /api/v1/tenders/{id}`.
 *
 * `REFERENCE_STANDING=memory` makes it the second reference: the standing (revoked jtis, disabled clients, token
 * generations) read once at start and checked from memory, as a server that keeps revocations in memory does.
 * Nothing is revoked during a bench, so it needs no updates; the gateway's updates cost nothing per request either.
 */
const url = process.env.BENCH_DATABASE_URL!;
const secret = process.env.JWT_SECRET!;
const inMemory = process.env.REFERENCE_STANDING === 'memory';
const db = new Database(url, { readonly: true, fileMustExist: true });
db.pragma('cache_size = -65536');

/** Each column field of the tender's declaration under its GraphQL name, and the facts its derived fields read. */
const COLUMN_FIELDS = TENDER_FIELD_LIST.flatMap((field) =>
  field.source === 'column' ? [{ name: field.name, read: field.kind.read }] : [],
);
const DERIVED_FIELDS = TENDER_FIELD_LIST.flatMap((field) => (field.source === 'derived' ? [field] : []));
const columnOf = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const COLUMNS = `${COLUMN_FIELDS.map(({ name }) => `t.${columnOf(name)} as "${name}"`).join(', ')},
  t.awarded_insurer_id, t.policy_number, t.policy_confirmed_at, t.policy_document_id, t.policy_period_start, t.policy_period_end,
  t.renewal_type, t.notice_period_months, t.notice_deadline,
  l.id as l_id, l.name as l_name,
  c.id as c_id, c.company_id as c_company_id, c.name as c_name, c.address_street as c_street, c.address_house_number as c_house,
  c.address_zip as c_zip, c.address_city as c_city, c.address_country as c_country,
  b.id as b_id, b.company_id as b_company_id, b.email as b_email, b.name as b_name, b.address_street as b_street,
  b.address_house_number as b_house, b.address_zip as b_zip, b.address_city as b_city, b.address_country as b_country,
  p.id as p_id, p.account_id as p_account_id, p.email as p_email, p.first_name as p_first, p.last_name as p_last, p.salutation as p_salutation`;
const JOINS = `join line_of_business l on l.id = t.line_of_business_id join customer c on c.id = t.customer_id
  join broker_company b on b.id = t.broker_company_id join person p on p.id = t.person_in_charge_id`;

const page = db.prepare(
  `select ${COLUMNS} from tender t ${JOINS}
   where t.id in (select id from tender order by created_at desc, id desc limit ? offset ?)
   order by t.created_at desc, t.id desc`,
);
const count = db.prepare('select count(*) as count from tender').pluck();
const one = db.prepare(`select ${COLUMNS} from tender t ${JOINS} where t.id = ?`);
const standing = db.prepare(
  `select c.disabled_at as disabled_at, c.token_generation as generation, (select 1 from revoked_token r where r.jti = ?) as revoked
   from api_client c where c.app_id = ?`,
);

interface Standing {
  disabled_at: unknown;
  generation: number;
  revoked: number | null;
}
const clients = new Map(
  (db.prepare('select app_id, disabled_at, token_generation from api_client').all() as Row[]).map((row) => [
    row.app_id as string,
    { disabled_at: row.disabled_at, generation: Number(row.token_generation) },
  ]),
);
const revoked = new Set(db.prepare('select jti from revoked_token where expires_at > ?').pluck().all(Date.now()) as string[]);
const standingOf = (jti: string, appId: string): Standing | undefined => {
  if (!inMemory) return standing.get(jti, appId) as Standing | undefined;
  const client = clients.get(appId);
  return client && { ...client, revoked: revoked.has(jti) ? 1 : null };
};

type Row = Record<string, string | number | null>;
const dateOf = (value: string | number | null) => (value === null ? null : new Date(value));
const address = (row: Row, p: string) => ({
  street: row[`${p}_street`],
  houseNumber: row[`${p}_house`],
  zip: row[`${p}_zip`],
  city: row[`${p}_city`],
  country: row[`${p}_country`],
});

/**
 * Spec 2.1, in the order and shape the gateway's REST shim gives it (an internal viewer: nothing withheld): the
 * values under their GraphQL names, named and ordered by the tender's declaration (src/tenders/shape/), which the
 * columns and derived fields are read from too; the relations are joined by hand.
 */
function tender(row: Row) {
  const values: Record<string, unknown> = {
    lineOfBusiness: { id: row.l_id, name: row.l_name },
    customer: { id: row.c_id, address: address(row, 'c'), companyId: row.c_company_id, name: row.c_name },
    brokerCompany: { id: row.b_id, address: address(row, 'b'), companyId: row.b_company_id, email: row.b_email, name: row.b_name },
    personInCharge: {
      id: row.p_id,
      accountId: row.p_account_id,
      email: row.p_email,
      firstName: row.p_first,
      lastName: row.p_last,
      salutation: row.p_salutation,
    },
  };
  for (const { name, read } of COLUMN_FIELDS) values[name] = row[name] === null ? null : read(row[name]);
  const facts = {
    status: row.status as TenderStatus,
    awardedInsurerId: row.awarded_insurer_id as string | null,
    policyNumber: row.policy_number as string | null,
    policyConfirmedAt: dateOf(row.policy_confirmed_at),
    policyDocumentId: row.policy_document_id as string | null,
    policyPeriodStart: row.policy_period_start as string | null,
    policyPeriodEnd: row.policy_period_end as string | null,
    renewalType: row.renewal_type as Parameters<(typeof DERIVED_FIELDS)[number]['value']>[0]['renewalType'],
    noticePeriodMonths: row.notice_period_months === null ? null : Number(row.notice_period_months),
    noticeDeadline: dateOf(row.notice_deadline),
  };
  for (const field of DERIVED_FIELDS) values[field.name] = field.value(facts);
  return representationOf(values);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The gateway's checks of a bearer token: signature, lifetime, issuer and audience, then its client's standing. */
function authenticated(header: string | undefined): boolean {
  const match = /^bearer +(\S+)$/i.exec(header ?? '');
  if (!match) return false;
  try {
    const claims = jwt.verify(match[1], secret, {
      algorithms: ['HS256'],
      issuer: 'tender-exchange',
      audience: 'tender-exchange-api',
    }) as jwt.JwtPayload;
    const found = standingOf(claims.jti!, claims.sub!);
    return Boolean(found) && !found!.revoked && found!.disabled_at === null && Number(found!.generation) === (claims.gen ?? 0);
  } catch {
    return false;
  }
}

const server = createServer((req, res) => {
  if (!authenticated(req.headers.authorization)) return send(res, 401, { code: 'UNAUTHENTICATED' });
  const target = new URL(req.url ?? '/', 'http://reference');
  if (target.pathname === '/api/v1/tenders') {
    const limit = Number(target.searchParams.get('limit') ?? 50);
    const skip = Number(target.searchParams.get('skip') ?? 0);
    // One row beyond the page tells whether there is a next one, as in the gateway.
    const rows = page.all(limit + 1, skip) as Row[];
    const shown = rows.slice(0, limit);
    const last = shown[shown.length - 1];
    const next =
      rows.length > limit
        ? Buffer.from(JSON.stringify([1, 'createdAt:desc,id:desc', Number(last.createdAt), last.id])).toString('base64url')
        : null;
    return send(res, 200, {
      metadata: { count: String(count.get()), skip: String(skip), limit: String(limit), sort: {}, next },
      payload: shown.map(tender),
    });
  }
  const item = /^\/api\/v1\/tenders\/([^/]+)$/.exec(target.pathname);
  const row = item ? (one.get(decodeURIComponent(item[1])) as Row | undefined) : undefined;
  return row ? send(res, 200, tender(row)) : send(res, 404, { code: 'NOT_FOUND' });
});

server.listen(Number(process.env.PORT), '127.0.0.1');
