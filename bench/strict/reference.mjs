// Baseline 1: node:http + better-sqlite3 (synchronous, prepared statements), reading the gateway's SQLite file
// read-only and answering GET /api/v1/tenders[?limit&skip] and GET /api/v1/tenders/:id with the gateway's exact
// JSON for one broker company (BROKER_COMPANY_ID). No auth, no logging, no metrics, no rate limit.
// Same statements as the gateway: the page's ids from `tender` alone (deferred join), then a separate count.
// Run: DB=/path/file.sqlite BROKER_COMPANY_ID=<id> PORT=4802 node reference.mjs
// (bench/strict/: ../shared/perf's file, with the fields the representation gained since: the policy period (issue 41)
// and the renewal terms and links (issue 42). Nothing else changed.)
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';

const COLUMNS = `t.id, t.status, t.product, t.tax_rate, t.policy_number, t.policy_confirmed_at, t.changes_metadata,
  t.created_at, t.updated_at, t.erased_at, t.policy_document_id, t.policy_period_start, t.policy_period_end,
  t.renewal_type, t.notice_period_months, t.notice_deadline, t.renewal_of, t.renewed_by, l.id as l_id, l.name as l_name,
  c.id as c_id, c.company_id as c_company_id, c.name as c_name, c.address_street as c_street,
  c.address_house_number as c_house, c.address_zip as c_zip, c.address_city as c_city, c.address_country as c_country,
  b.id as b_id, b.company_id as b_company_id, b.email as b_email, b.name as b_name, b.address_street as b_street,
  b.address_house_number as b_house, b.address_zip as b_zip, b.address_city as b_city, b.address_country as b_country,
  p.id as p_id, p.account_id as p_account_id, p.email as p_email, p.first_name as p_first, p.last_name as p_last,
  p.salutation as p_salutation
  from tender t join line_of_business l on l.id = t.line_of_business_id join customer c on c.id = t.customer_id
  join broker_company b on b.id = t.broker_company_id join person p on p.id = t.person_in_charge_id`;
const ORDER = 'order by created_at desc, id desc';

/** Prepared statements for one scope: a broker company's tenders, or all of them (brokerCompanyId null). */
export function openTenders(file) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('cache_size = -65536'); // as the gateway's connection
  const st = {
    broker: {
      page: db.prepare(`select ${COLUMNS} where t.id in (select id from tender where broker_company_id = ? ${ORDER} limit ? offset ?) order by t.created_at desc, t.id desc`),
      count: db.prepare('select count(*) as n from tender where broker_company_id = ?').pluck(),
      one: db.prepare(`select ${COLUMNS} where t.id = ? and t.broker_company_id = ?`),
    },
    all: {
      page: db.prepare(`select ${COLUMNS} where t.id in (select id from tender ${ORDER} limit ? offset ?) order by t.created_at desc, t.id desc`),
      count: db.prepare('select count(*) as n from tender').pluck(),
      one: db.prepare(`select ${COLUMNS} where t.id = ?`),
    },
  };
  return {
    page(brokerCompanyId, limit, skip) {
      // One row beyond the page tells whether there is a next one; `next` is the gateway's opaque cursor.
      const rows = brokerCompanyId ? st.broker.page.all(brokerCompanyId, limit + 1, skip) : st.all.page.all(limit + 1, skip);
      const count = brokerCompanyId ? st.broker.count.get(brokerCompanyId) : st.all.count.get();
      const shown = rows.slice(0, limit);
      const last = shown[shown.length - 1];
      const next = rows.length > limit ? Buffer.from(JSON.stringify([1, 'createdAt:desc,id:desc', Number(last.created_at), last.id])).toString('base64url') : null;
      return { metadata: { count: String(count), skip: String(skip), limit: String(limit), sort: {}, next }, payload: shown.map(tender) };
    },
    one(brokerCompanyId, id) {
      const row = brokerCompanyId ? st.broker.one.get(id, brokerCompanyId) : st.all.one.get(id);
      return row && tender(row);
    },
  };
}

const iso = (ms) => new Date(ms).toISOString();
const address = (r, p) => ({ street: r[`${p}_street`], house_number: r[`${p}_house`], zip: r[`${p}_zip`], city: r[`${p}_city`], country: r[`${p}_country`] });

/** One row as the gateway shows it to a broker (never redacted), fields in the gateway's order. */
function tender(r) {
  return {
    _id: r.id,
    changes_metadata: JSON.parse(r.changes_metadata),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    product: r.product,
    status: r.status,
    tax_rate: r.tax_rate,
    line_of_business: { _id: r.l_id, name: r.l_name },
    customer: { _id: r.c_id, address: address(r, 'c'), company_id: r.c_company_id, name: r.c_name },
    broker_company: { _id: r.b_id, address: address(r, 'b'), company_id: r.b_company_id, email: r.b_email, name: r.b_name },
    person_in_charge: { _id: r.p_id, account_id: r.p_account_id, email: r.p_email, first_name: r.p_first, last_name: r.p_last, salutation: r.p_salutation },
    policy_documentation:
      r.status === 'SUCCESSFUL'
        ? { status: r.policy_number ? 'CONFIRMED' : 'PENDING', policy_number: r.policy_number, confirmed_at: r.policy_confirmed_at == null ? null : iso(r.policy_confirmed_at), document_id: r.policy_document_id, period: r.policy_period_start && r.policy_period_end ? { start: r.policy_period_start, end: r.policy_period_end } : null }
        : null,
    renewal:
      r.status === 'SUCCESSFUL' && r.renewal_type && r.notice_period_months && r.notice_deadline != null
        ? { type: r.renewal_type, notice_period_months: Number(r.notice_period_months), notice_deadline: iso(r.notice_deadline) }
        : null,
    renewal_of: r.renewal_of,
    renewed_by: r.renewed_by,
    erased_at: r.erased_at == null ? null : iso(r.erased_at),
  };
}

const send = (res, status, body) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};
const INT = /^(0|[1-9]\d{0,8})$/;

/** The request handler; `scopeOf(req)` returns the broker company id, null for all tenders, or undefined for 401. */
export function handler(tenders, scopeOf) {
  return (req, res) => {
    const [path, query = ''] = req.url.split('?', 2);
    const scope = scopeOf(req);
    if (scope === undefined) return send(res, 401, { title: 'Unauthorized' });
    if (path === '/api/v1/tenders') {
      const q = new URLSearchParams(query);
      const limit = q.get('limit') ?? '50';
      const skip = q.get('skip') ?? '0';
      if (!INT.test(limit) || !INT.test(skip) || +limit < 1 || +limit > 200) return send(res, 400, { title: 'Bad Request' });
      return send(res, 200, tenders.page(scope, +limit, +skip));
    }
    if (path.startsWith('/api/v1/tenders/')) {
      const found = tenders.one(scope, decodeURIComponent(path.slice('/api/v1/tenders/'.length)));
      return found ? send(res, 200, found) : send(res, 404, { title: 'Not Found' });
    }
    send(res, 404, { title: 'Not Found' });
  };
}

export function listen(requestHandler, name) {
  const server = createServer(requestHandler);
  server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log(`${name} ready on 127.0.0.1:${server.address().port}`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop).on('SIGINT', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const broker = process.env.BROKER_COMPANY_ID;
  if (!process.env.DB || !broker) throw new Error('DB and BROKER_COMPANY_ID are required');
  listen(handler(openTenders(process.env.DB), () => broker), 'raw-better-sqlite3');
}
