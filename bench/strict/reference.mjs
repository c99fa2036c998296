// Baseline 1: node:http + better-sqlite3 (synchronous, prepared statements), reading the gateway's SQLite file
// read-only and answering, with the gateway's exact JSON, GET /api/v1/tenders[?limit&skip] and
// GET /api/v1/tenders/:id for a broker company (BROKER_COMPANY_ID) and GET /public/v1/tenders[?limit&skip] and
// GET /public/v1/tenders/:id for an insurer (INSURER_ID). No auth, no logging, no metrics, no rate limit.
// Same statements as the gateway: the page's ids from `tender` alone (deferred join), then a separate count.
// Run: DB=/path/file.sqlite BROKER_COMPANY_ID=<id> PORT=4802 node reference.mjs (or INSURER_ID=<id>)
// (bench/strict/: ../shared/perf's file, with the fields the representation gained since: the policy period (issue 41)
// and the renewal terms and links (issue 42); and the insurer's case (issue 43), which ../shared/perf's file does not
// have: an insurer sees the tenders it was invited to, a CLOSED tender and a SUCCESSFUL one another insurer won with
// the withheld fields null (src/tenders/tender-audience.ts, tender-fields.ts), the count is its invitations, and its
// list is read as the gateway reads it (src/tenders/read/tender-access.ts `listedTenders`): from its invitations up to
// a thousand of them, else by the sort key's index probing each tender's invitations. Each surface answers its own
// roles, as the gateway's access policy: /api/v1 a broker and internal users, /public/v1 an insurer and internal users.
// Error bodies are short problem documents, not the gateway's.)
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
  p.salutation as p_salutation, t.awarded_insurer_id as awarded
  from tender t join line_of_business l on l.id = t.line_of_business_id join customer c on c.id = t.customer_id
  join broker_company b on b.id = t.broker_company_id join person p on p.id = t.person_in_charge_id`;
const ORDER = 'order by created_at desc, id desc';

/** An insurer's invitations, the two ways the gateway lists them (tender-audience.ts): `in` reads them, `exists` probes them. */
const INVITED = {
  in: (alias) => `${alias}.id in (select ti.tender_id from tender_invitation ti where ti.insurer_id = ?)`,
  exists: (alias) => `exists (select 1 from tender_invitation ti where ti.tender_id = ${alias}.id and ti.insurer_id = ?)`,
};
/** Up to this many invitations, an insurer's list reads them rather than walk every tender (tender-access.ts). */
const FEW_INVITATIONS = 1000;

/**
 * Prepared statements for each scope: `{ kind: 'broker', id }` (a broker company's tenders), `{ kind: 'insurer', id }`
 * (the tenders an insurer was invited to), `{ kind: 'all' }`.
 */
export function openTenders(file) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('cache_size = -65536'); // as the gateway's connection
  const pageOf = (where) =>
    db.prepare(`select ${COLUMNS} where t.id in (select id from tender p ${where} ${ORDER} limit ? offset ?) order by t.created_at desc, t.id desc`);
  const st = {
    broker: {
      page: pageOf('where p.broker_company_id = ?'),
      count: db.prepare('select count(*) as n from tender where broker_company_id = ?').pluck(),
      one: db.prepare(`select ${COLUMNS} where t.id = ? and t.broker_company_id = ?`),
    },
    insurer: {
      pageFew: pageOf(`where ${INVITED.in('p')}`),
      pageMany: pageOf(`where ${INVITED.exists('p')}`),
      count: db.prepare('select count(*) as n from tender_invitation where insurer_id = ?').pluck(),
      one: db.prepare(`select ${COLUMNS} where t.id = ? and ${INVITED.exists('t')}`),
    },
    all: {
      page: pageOf(''),
      count: db.prepare('select count(*) as n from tender').pluck(),
      one: db.prepare(`select ${COLUMNS} where t.id = ?`),
    },
  };
  /** The rows of a page (one beyond it) and the count, for the scope. */
  function rowsOf(scope, limit, skip) {
    switch (scope.kind) {
      case 'broker':
        return [st.broker.page.all(scope.id, limit + 1, skip), st.broker.count.get(scope.id)];
      case 'insurer': {
        const count = st.insurer.count.get(scope.id);
        return [(count <= FEW_INVITATIONS ? st.insurer.pageFew : st.insurer.pageMany).all(scope.id, limit + 1, skip), count];
      }
      default:
        return [st.all.page.all(limit + 1, skip), st.all.count.get()];
    }
  }
  return {
    page(scope, limit, skip) {
      // One row beyond the page tells whether there is a next one; `next` is the gateway's opaque cursor.
      const [rows, count] = rowsOf(scope, limit, skip);
      const shown = rows.slice(0, limit);
      const last = shown[shown.length - 1];
      const next = rows.length > limit ? Buffer.from(JSON.stringify([1, 'createdAt:desc,id:desc', Number(last.created_at), last.id])).toString('base64url') : null;
      const insurer = scope.kind === 'insurer' ? scope.id : undefined;
      return { metadata: { count: String(count), skip: String(skip), limit: String(limit), sort: {}, next }, payload: shown.map((row) => tender(row, insurer)) };
    },
    one(scope, id) {
      const row = scope.kind === 'broker' ? st.broker.one.get(id, scope.id) : scope.kind === 'insurer' ? st.insurer.one.get(id, scope.id) : st.all.one.get(id);
      return row && tender(row, scope.kind === 'insurer' ? scope.id : undefined);
    },
  };
}

const iso = (ms) => new Date(ms).toISOString();
const address = (r, p) => ({ street: r[`${p}_street`], house_number: r[`${p}_house`], zip: r[`${p}_zip`], city: r[`${p}_city`], country: r[`${p}_country`] });

/**
 * One row as the gateway shows it, fields in the gateway's order: to a broker or an internal user in full; to an insurer
 * (`insurer`, its id) a CLOSED tender and a SUCCESSFUL one another insurer won with the withheld fields null.
 */
function tender(r, insurer) {
  if (insurer !== undefined && (r.status === 'CLOSED' || (r.status === 'SUCCESSFUL' && r.awarded !== insurer))) return withheld(r);
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

/** The identifying fields only (tender-fields.ts, `withheld`): the rest null, in the same order. */
function withheld(r) {
  return {
    _id: r.id,
    changes_metadata: JSON.parse(r.changes_metadata),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    product: r.product,
    status: r.status,
    tax_rate: null,
    line_of_business: { _id: r.l_id, name: r.l_name },
    customer: null,
    broker_company: null,
    person_in_charge: null,
    policy_documentation: null,
    renewal: null,
    renewal_of: null,
    renewed_by: null,
    erased_at: null,
  };
}

const send = (res, status, body) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};
const INT = /^(0|[1-9]\d{0,8})$/;

/** Which scopes each surface answers (the gateway's access policy: `brokerApi`, `insurerApi`); others are a 403. */
const SURFACES = [
  { prefix: '/api/v1/tenders', kinds: ['broker', 'all'] },
  { prefix: '/public/v1/tenders', kinds: ['insurer', 'all'] },
];

/** The request handler; `scopeOf(req)` returns the scope (`openTenders`), or undefined for 401. */
export function handler(tenders, scopeOf) {
  return (req, res) => {
    const [path, query = ''] = req.url.split('?', 2);
    const surface = SURFACES.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`));
    if (!surface) return send(res, 404, { title: 'Not Found' });
    const scope = scopeOf(req);
    if (scope === undefined) return send(res, 401, { title: 'Unauthorized' });
    if (!surface.kinds.includes(scope.kind)) return send(res, 403, { title: 'Forbidden' });
    if (path === surface.prefix) {
      const q = new URLSearchParams(query);
      const limit = q.get('limit') ?? '50';
      const skip = q.get('skip') ?? '0';
      if (!INT.test(limit) || !INT.test(skip) || +limit < 1 || +limit > 200) return send(res, 400, { title: 'Bad Request' });
      return send(res, 200, tenders.page(scope, +limit, +skip));
    }
    const found = tenders.one(scope, decodeURIComponent(path.slice(surface.prefix.length + 1)));
    return found ? send(res, 200, found) : send(res, 404, { title: 'Not Found' });
  };
}

export function listen(requestHandler, name) {
  const server = createServer(requestHandler);
  server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log(`${name} ready on 127.0.0.1:${server.address().port}`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop).on('SIGINT', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { BROKER_COMPANY_ID: broker, INSURER_ID: insurer } = process.env;
  if (!process.env.DB || !(broker || insurer)) throw new Error('DB and BROKER_COMPANY_ID or INSURER_ID are required');
  const scope = broker ? { kind: 'broker', id: broker } : { kind: 'insurer', id: insurer };
  listen(handler(openTenders(process.env.DB), () => scope), 'raw-better-sqlite3');
}
