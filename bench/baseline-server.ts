import express from 'express';
import pg from 'pg';
import sqlite3 from 'sqlite3';

/**
 * The benchmark's baseline: a minimal hand-written handler that answers the same tender page with one SQL
 * query (the total as a scalar subquery) and the same JSON, without auth, GraphQL or an ORM. It reads the
 * database the gateway reads: a SQLite file (`BENCH_DATABASE_URL` is a path) or PostgreSQL (`postgres://…`).
 */
const url = process.env.BENCH_DATABASE_URL!;
const postgres = /^postgres(ql)?:\/\//.test(url);

const sql = (first: string, second: string) => `
  select t.id, t.changes_metadata, t.created_at, t.updated_at, t.product, t.status, t.tax_rate, t.policy_number,
    t.policy_confirmed_at, l.id as l_id, l.name as l_name,
    c.id as c_id, c.company_id as c_company_id, c.name as c_name, c.address_street as c_street,
    c.address_house_number as c_house, c.address_zip as c_zip, c.address_city as c_city, c.address_country as c_country,
    b.id as b_id, b.company_id as b_company_id, b.email as b_email, b.name as b_name, b.address_street as b_street,
    b.address_house_number as b_house, b.address_zip as b_zip, b.address_city as b_city, b.address_country as b_country,
    p.id as p_id, p.account_id as p_account_id, p.email as p_email, p.first_name as p_first, p.last_name as p_last,
    p.salutation as p_salutation, (select count(*) from tender) as total
  from tender t
  join line_of_business l on l.id = t.line_of_business_id
  join customer c on c.id = t.customer_id
  join broker_company b on b.id = t.broker_company_id
  join person p on p.id = t.person_in_charge_id
  order by t.created_at desc, t.id desc limit ${first} offset ${second}`;

/** One row of the join; the statement's count of all rows comes with each (a number on SQLite, a string on PostgreSQL). */
type Row = { total: number | string; [column: string]: unknown };
type Query = (limit: number, skip: number) => Promise<Row[]>;

function openQuery(): Query {
  if (postgres) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const text = sql('$1', '$2');
    return async (limit, skip) => (await pool.query<Row>(text, [limit, skip])).rows;
  }
  const db = new sqlite3.Database(url, sqlite3.OPEN_READONLY);
  const text = sql('?', '?');
  return (limit, skip) =>
    new Promise((resolve, reject) => db.all(text, [limit, skip], (error, rows: Row[]) => (error ? reject(error) : resolve(rows))));
}

/** SQLite keeps datetimes as epoch milliseconds, PostgreSQL's driver gives Date objects: Number() reads both. */
const iso = (value: unknown) => new Date(Number(value)).toISOString();
const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
const address = (row: Row, prefix: string) => ({
  street: row[`${prefix}_street`],
  house_number: row[`${prefix}_house`],
  zip: row[`${prefix}_zip`],
  city: row[`${prefix}_city`],
  country: row[`${prefix}_country`],
});

const query = openQuery();
const app = express();
app.get('/tenders', async (req, res) => {
  const skip = Number(req.query.skip ?? 0);
  const limit = Number(req.query.limit ?? 50);
  let rows: Row[];
  try {
    rows = await query(limit, skip);
  } catch {
    res.status(500).end();
    return;
  }
  res.json({
    metadata: { count: String(rows[0]?.total ?? 0), skip: String(skip), limit: String(limit), sort: {} },
    payload: rows.map((row) => ({
      _id: row.id,
      changes_metadata: json(row.changes_metadata),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      product: row.product,
      status: row.status,
      tax_rate: Number(row.tax_rate),
      line_of_business: { _id: row.l_id, name: row.l_name },
      customer: { _id: row.c_id, address: address(row, 'c'), company_id: row.c_company_id, name: row.c_name },
      broker_company: { _id: row.b_id, address: address(row, 'b'), company_id: row.b_company_id, email: row.b_email, name: row.b_name },
      person_in_charge: {
        _id: row.p_id,
        account_id: row.p_account_id,
        email: row.p_email,
        first_name: row.p_first,
        last_name: row.p_last,
        salutation: row.p_salutation,
      },
      policy_documentation:
        row.status === 'SUCCESSFUL'
          ? {
              status: row.policy_number ? 'CONFIRMED' : 'PENDING',
              policy_number: row.policy_number,
              confirmed_at: row.policy_confirmed_at ? iso(row.policy_confirmed_at) : null,
            }
          : null,
    })),
  });
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('baseline ready'));
