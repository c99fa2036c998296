import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { format } from 'node:util';
import type { MikroORM } from '@mikro-orm/core';
import { SingleBar } from 'cli-progress';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { type ApiClient, ApiClientService } from '../auth';
import { ROLES, type Role } from '../access';
import { type Config, loadConfig } from '../platform/config';
import { databaseEngine } from '../platform/db/orm-options';
import { createMigration, migrationDrift, openDatabase } from '../database';
import { DomainError, type FieldProblem } from '../platform/errors/domain-error';
import { schemaSdl } from '../api/graphql/schema';
import { openApiDocument } from '../api/rest/openapi/openapi-document';
import { InsurerIntegration, InsurerService } from '../insurers';
import { InsurerChecker, type InsurerCheckReport } from '../quotes';
import { DocumentStores, moveDocumentsToConfiguredStore } from '../documents';
import { customerDataExport, ErasureTrigger, eraseCustomer, presentErasure } from '../privacy';
import { webhooksModule } from '../webhooks';
import { LIMITS, isHttpUrl } from '../platform/validation/rules';
import { parseTimestamp, TIMESTAMP_RULE } from '../platform/validation/timestamp';
import { SeedService } from '../seed/seed.service';
import { VERSION } from '../platform/version';
import { addQuestionSetCommands } from './question-set-commands';

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

/** The gateway's one timestamp rule; the seed also needs two years before it, so not before the year 0003. */
function timestamp(value: string): Date {
  const date = parseTimestamp(value);
  if (!date || date.getUTCFullYear() < 3) throw new InvalidArgumentError(`expected ${TIMESTAMP_RULE}, from the year 0003 on`);
  return date;
}

/**
 * Exit code of a command used wrongly (an unknown option or command, a bad value, an unknown insurer): 2, as against
 * 1 for a command that failed (a database outage, a check that did not pass).
 */
const USAGE_ERROR = 2;
const isUsageError = (error: unknown) => error instanceof DomainError && (error.code === 'BAD_USER_INPUT' || error.code === 'NOT_FOUND');

function waitMs(value: string): number {
  const ms = positiveInteger(value);
  if (ms < 1 || ms > LIMITS.insurerCheckWaitMs) throw new InvalidArgumentError(`expected 1 to ${LIMITS.insurerCheckWaitMs} ms`);
  return ms;
}

function httpUrl(value: string): string {
  if (!isHttpUrl(value)) throw new InvalidArgumentError('expected an absolute http(s) URL');
  return value;
}

/** Whether a gateway answers at `url`; the reason the callback step fails at once when none does. */
async function gatewayProblem(url: string): Promise<string | null> {
  const refusal = (why: string) =>
    `no gateway answers at ${url} (${why}): the insurer system calls back to a running gateway, so run the check while the gateway ` +
    'that uses this database runs (npm start), and name its address with --gateway-url if it is not the default';
  try {
    const response = await fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return response.ok ? null : refusal(`GET /healthz answered ${response.status}`);
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return refusal(cause ?? (error instanceof Error ? error.message : String(error)));
  }
}

/** The report for people: one line per step. */
function formatReport(report: InsurerCheckReport): string {
  const width = Math.max(...report.steps.map((step) => step.name.length));
  const lines = [
    `Onboarding check of ${report.insurer.name} (${report.insurer.id}) at ${report.insurer.quoteApiUrl}, started ${report.startedAt}`,
  ];
  for (const step of report.steps) {
    const mark = step.skipped ? '–' : step.passed ? '✔' : '✘';
    lines.push(`  ${mark} ${step.name.padEnd(width)} ${`${step.ms} ms`.padStart(9)}  ${step.detail}`);
  }
  const failed = report.steps.filter((step) => !step.passed).map((step) => step.name);
  lines.push(report.passed ? `PASSED in ${report.totalMs} ms` : `FAILED in ${report.totalMs} ms: ${failed.join(', ')}`);
  return lines.join('\n');
}

/** Where a run of the CLI reads its settings and writes its output: the process's own, or a test's. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * Runs one CLI command (`args` as after `npm run cli --`) and answers its exit code: 0 done, 1 failed, 2 usage error.
 * A fresh program each run (commander keeps the parsed options on it), so the tests run commands in their own process.
 */
export async function runCli(
  args: string[],
  io: CliIo = { env: process.env, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  /** Whether the command was asked for machine-readable output: then its errors are JSON too. */
  const json = args.includes('--json');
  let exitCode = 0;
  const logLine = (...data: unknown[]) => io.stdout.write(`${format(...data)}\n`);
  const errorLine = (...data: unknown[]) => io.stderr.write(`${format(...data)}\n`);
  const settings = (): Config => loadConfig(io.env);

  /** Opens the migrated database for one command and closes it afterwards. */
  async function withDatabase<T>(work: (orm: MikroORM) => Promise<T>): Promise<T> {
    const orm = await openDatabase(settings());
    try {
      return await work(orm);
    } finally {
      await orm.close();
    }
  }

  function print(json: boolean | undefined, data: Record<string, unknown>, text: string): void {
    logLine(json ? JSON.stringify(data) : text);
  }

  /**
   * A failed command's reason on stderr: a domain error with its code and field problems, else the message; with
   * `--json`, one line `{"error": {"code", "message", "errors"}}`.
   */
  function printError(error: unknown): void {
    if (json) {
      const { code, message, errors } =
        error instanceof DomainError
          ? { code: error.code, message: error.message, errors: [...error.errors, ...error.problems] }
          : { code: 'FAILED', message: error instanceof Error ? error.message : String(error), errors: [] };
      errorLine(JSON.stringify({ error: { code, message, errors } }));
      return;
    }
    if (error instanceof DomainError) {
      errorLine(`${error.code}: ${error.message}`);
      // The problems inside a document (a question set, answers) after the fields, as REST lists them together.
      const problems: FieldProblem[] = [...error.errors, ...error.problems];
      for (const problem of problems) errorLine(`  ${problem.parameter ?? (problem.pointer || '(root)')}: ${problem.message}`);
    } else {
      errorLine(error instanceof Error ? error.message : error);
    }
  }

  /** Writes to stdout, waiting while its buffer is full: a long export streams instead of piling up in memory. */
  function write(text: string): Promise<void> {
    return new Promise((resolve) => (io.stdout.write(text) ? resolve() : io.stdout.once('drain', resolve)));
  }

  const program = new Command('tender-exchange')
    .description('Operate the Tender Exchange gateway')
    .version(VERSION, '-V, --version', 'the gateway version')
    // The program's options only before a command: question-sets:validate has a --version of its own.
    .enablePositionalOptions()
    // Set before the commands are added, so every command inherits it: usage errors reach the catch below (exit 2).
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) =>
        write(
          json ? `${JSON.stringify({ error: { code: 'USAGE_ERROR', message: text.replace(/^error: /, '').trim(), errors: [] } })}\n` : text,
        ),
    });

  program
    .command('db:migrate')
    .description('apply pending database migrations')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      const orm = await openDatabase(settings(), { migrate: false });
      try {
        const applied = await orm.getMigrator().up();
        const names = applied.map((migration) => migration.name);
        logLine(
          options.json ? JSON.stringify({ applied: names }) : names.length ? `applied: ${names.join(', ')}` : 'database is up to date',
        );
      } finally {
        await orm.close();
      }
    });

  program
    .command('db:migration:create')
    .description(
      "generate the configured engine's migration for what the entities describe beyond the migrations, and add it to that engine's index (developers; run once per engine)",
    )
    .action(async () => {
      const created = await createMigration(settings());
      logLine(created ? `created ${created} and added it to the migrations index` : 'no changes');
    });

  program
    .command('db:check-migrations')
    .description('check that the migrations build the schema the entities describe, on a fresh database of the configured engine (CI)')
    .action(async () => {
      const { databaseUrl } = settings();
      const drift = await migrationDrift({ databaseUrl });
      const engine = databaseEngine(databaseUrl);
      if (drift.length === 0) {
        logLine(`entities and migrations agree on ${engine}`);
        return;
      }
      errorLine(`entities and migrations differ on ${engine}: a fresh database with every migration still needs\n${drift.join('\n')}`);
      errorLine('add a migration for each engine (npm run cli -- db:migration:create, then add it to the migrations index)');
      exitCode = 1;
    });

  program
    .command('schema:emit')
    .description('write schema.graphql from the code-first schema')
    .action(async () => {
      writeFileSync('schema.graphql', await schemaSdl());
      logLine('wrote schema.graphql');
    });

  program
    .command('openapi:emit')
    .argument('[file]', 'where to write it', 'dist/openapi.json')
    .description('write the REST contract (the document served at /openapi.json), for linters and client generators')
    .action((file: string) => {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(openApiDocument, null, 2)}\n`);
      logLine(`wrote ${file}`);
    });

  program
    .command('clients:create')
    .description('create API credentials; the secret is printed once and stored only as a hash')
    .addOption(new Option('--role <role>', 'role of the client').choices(ROLES).makeOptionMandatory())
    .option('--insurer <id>', 'insurer id (role insurer)')
    .option('--broker-company <id>', 'broker company id (role broker)')
    .option('--description <text>', 'what the client is for')
    .option('--json', 'machine-readable output')
    .action(async (options: { role: Role; insurer?: string; brokerCompany?: string; description?: string; json?: boolean }) => {
      const { client, secret } = await withDatabase((orm) =>
        new ApiClientService(orm.em.fork()).create({
          role: options.role,
          insurerId: options.insurer,
          brokerCompanyId: options.brokerCompany,
          description: options.description,
        }),
      );
      print(
        options.json,
        {
          app_id: client.appId,
          secret,
          role: client.role,
          insurer_id: client.insurer?.id ?? null,
          broker_company_id: client.brokerCompany?.id ?? null,
        },
        `app_id: ${client.appId}\nsecret: ${secret}\nrole:   ${client.role}\nThe secret is shown only now; store it safely.`,
      );
    });

  /** clients:disable, clients:enable: the client's state after the change. */
  function clientStateCommand(
    name: string,
    description: string,
    change: (service: ApiClientService, appId: string) => Promise<ApiClient>,
  ): void {
    program
      .command(`${name} <app_id>`)
      .description(description)
      .option('--json', 'machine-readable output')
      .action(async (appId: string, options: { json?: boolean }) => {
        const client = await withDatabase((orm) => change(new ApiClientService(orm.em.fork()), appId));
        const disabledAt = client.disabledAt?.toISOString() ?? null;
        print(
          options.json,
          { app_id: client.appId, role: client.role, disabled_at: disabledAt },
          `${client.appId}: ${disabledAt ? `disabled since ${disabledAt}` : 'enabled'}`,
        );
      });
  }
  clientStateCommand('clients:disable', "refuse the client's tokens at once and issue it none until enabled", (service, appId) =>
    service.disable(appId),
  );
  clientStateCommand(
    'clients:enable',
    'issue the client tokens again (tokens from before it was disabled stay refused)',
    (service, appId) => service.enable(appId),
  );

  program
    .command('clients:rotate-secret <app_id>')
    .description('give the client a new secret, printed once; the old one stops working at once')
    .option('--revoke-tokens', 'also refuse every token issued so far (the old secret leaked)')
    .option('--json', 'machine-readable output')
    .action(async (appId: string, options: { revokeTokens?: boolean; json?: boolean }) => {
      const { client, secret } = await withDatabase((orm) =>
        new ApiClientService(orm.em.fork()).rotateSecret(appId, options.revokeTokens === true),
      );
      print(
        options.json,
        { app_id: client.appId, secret, tokens_revoked: options.revokeTokens === true },
        `app_id: ${client.appId}\nsecret: ${secret}\nThe secret is shown only now; store it safely.${options.revokeTokens ? '\nEvery earlier token of this client is refused.' : ''}`,
      );
    });

  program
    .command('insurers:create')
    .description('register an insurer and the base URL of its quote API (or, with --manual, an insurer without an API)')
    .requiredOption('--name <name>', 'insurer name')
    .option('--quote-api-url <url>', 'base URL of the insurer system (POST /quotes, GET /quotes/{id}); required unless --manual')
    .option('--manual', 'the insurer has no API: its quotes are entered through GraphQL (submitManualQuote)')
    .option('--credential <token>', 'bearer credential the gateway presents to the insurer system')
    .option('--json', 'machine-readable output')
    .action(async (options: { name: string; quoteApiUrl?: string; manual?: boolean; credential?: string; json?: boolean }) => {
      const insurer = await withDatabase((orm) =>
        new InsurerService(orm.em.fork(), settings().quotes.urlAllowList).create({
          name: options.name,
          integration: options.manual ? InsurerIntegration.MANUAL : InsurerIntegration.API,
          quoteApiUrl: options.quoteApiUrl,
          outboundCredential: options.credential,
        }),
      );
      print(
        options.json,
        { id: insurer.id, name: insurer.name, integration: insurer.integration, quote_api_url: insurer.quoteApiUrl ?? null },
        `insurer ${insurer.name}: ${insurer.id}`,
      );
    });

  program
    .command('insurer:check <insurer>')
    .description(
      'onboarding check: a real quote exchange with the insurer system (by insurer id or exact name) on a test request no one sees; ' +
        'needs the gateway that uses this database running, for the callback. Exit code 0 passed, 1 failed, 2 usage error',
    )
    .option('--wait-ms <ms>', 'how long to wait for the callback after the acknowledgement (default 30000)', waitMs)
    .option('--gateway-url <url>', 'where the running gateway answers (default http://localhost:$PORT)', httpUrl)
    .option('--json', 'machine-readable output')
    .action(async (insurerKey: string, options: { waitMs?: number; gatewayUrl?: string; json?: boolean }) => {
      const config = settings();
      const checker = new InsurerChecker(config.quotes);
      const report = await withDatabase(async (orm) => {
        const em = orm.em.fork();
        const insurer = await checker.findInsurer(em, insurerKey).catch((error: unknown) => {
          // An unknown insurer is the caller's mistake (2); anything else, a database outage say, is a failure (1).
          if (!isUsageError(error)) throw error;
          printError(error);
          exitCode = USAGE_ERROR;
        });
        if (!insurer) return undefined;
        const gatewayUrl = options.gatewayUrl ?? `http://localhost:${config.port}`;
        return checker.run(em, insurer, {
          waitMs: options.waitMs ?? checker.defaultWaitMs,
          gatewayProblem: await gatewayProblem(gatewayUrl),
        });
      });
      if (!report) return;
      logLine(options.json ? JSON.stringify(report) : formatReport(report));
      exitCode = report.passed ? 0 : 1;
    });

  program
    .command('customers:export <customer_id>')
    .description(
      'everything held about a customer as one JSON document on stdout (GDPR art. 15 and 20), written part by part so ' +
        'memory stays bounded; exit code 2 for an unknown customer',
    )
    .option('--json', 'machine-readable output (the document is JSON either way; errors become JSON too)')
    .action(async (customerId: string) => {
      await withDatabase(async (orm) => {
        let complete = true;
        for (let skip: number | null = 0, first = true; skip !== null; first = false) {
          const part = await customerDataExport(orm.em.fork(), customerId, skip);
          const head = { exported_at: part.exported_at, customer: part.customer, tenders_total: part.tenders_total };
          complete &&= part.access_log_complete === true;
          if (first) await write(`${JSON.stringify(head).slice(0, -1)},"tenders":[`);
          for (const [at, tender] of (part.tenders as unknown[]).entries())
            await write(`${first && at === 0 ? '' : ','}${JSON.stringify(tender)}`);
          skip = part.next_skip as number | null;
        }
        await write(`],"access_log_complete":${complete}}\n`);
      });
    });

  program
    .command('customers:erase <customer_id>')
    .description(
      'erase what identifies the customer and the persons of its tenders (GDPR art. 17; the tenders and their figures stay). ' +
        'Erasing again removes whatever personal data reached its tenders since, and is recorded too. Exit code 0 erased (or erased again), 2 usage error (no such customer, a bad reason)',
    )
    .requiredOption('--reason <text>', 'why, kept with the record of the erasure: a reference such as a ticket number, not the customer')
    .option('--json', 'machine-readable output')
    .action(async (customerId: string, options: { reason: string; json?: boolean }) => {
      const config = settings();
      const outcome = await withDatabase((orm) =>
        eraseCustomer(
          orm.em.fork(),
          { documents: { store: new DocumentStores(config.documents) }, listeners: webhooksModule.customerErasures },
          { customerId, reason: options.reason, by: 'cli', trigger: ErasureTrigger.REQUEST },
        ),
      );
      const erasure = presentErasure(outcome!);
      print(
        options.json,
        {
          customer_id: erasure.customerId,
          erased_at: erasure.erasedAt.toISOString(),
          already_erased: erasure.alreadyErased,
          tenders: erasure.tenders,
          documents: erasure.documents,
          persons: erasure.persons,
        },
        `customer ${erasure.customerId} ${erasure.alreadyErased ? 'was erased before; erased again' : 'erased'}: ${erasure.tenders} tenders kept without personal data, ${erasure.documents} documents deleted, ${erasure.persons} persons in charge erased`,
      );
    });

  /** A store's name as DOCUMENT_STORE spells it. */
  function storeName(value: string): string {
    if (value !== 'filesystem' && !/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[\w\-./]*)?$/.test(value)) {
      throw new InvalidArgumentError('expected filesystem or s3://bucket/prefix');
    }
    return value.replace(/\/+$/, '');
  }

  program
    .command('documents:migrate-store')
    .description(
      'copy every document from the store its row names into the configured DOCUMENT_STORE (size and SHA-256 checked), ' +
        'then point its row at it; idempotent and resumable (run it again after a failure). Exit code 0 all moved, 1 some failed',
    )
    .option('--from <store>', 'move only the documents of this store (filesystem or s3://bucket/prefix)', storeName)
    .option('--json', 'machine-readable output')
    .action(async (options: { from?: string; json?: boolean }) => {
      const config = settings();
      const stores = new DocumentStores(config.documents);
      const bar =
        options.json || !io.stderr.isTTY
          ? undefined
          : new SingleBar({ stream: io.stderr, format: 'moving documents [{bar}] {value}/{total}, {eta}s left' });
      let started = false;
      const report = await withDatabase((orm) =>
        moveDocumentsToConfiguredStore(orm.em.fork(), stores, {
          from: options.from,
          onProgress: (done, total) => {
            if (!started) bar?.start(total, 0);
            started = true;
            bar?.update(done);
          },
        }),
      );
      bar?.stop();
      print(
        options.json,
        {
          to: report.to,
          moved: report.moved,
          already_there: report.alreadyThere,
          failed: report.failed.map((failure) => ({ document_id: failure.documentId, store: failure.store, reason: failure.reason })),
        },
        [
          `${report.moved} documents moved into ${report.to}; ${report.alreadyThere} were there already`,
          ...report.failed.map((failure) => `  failed: document ${failure.documentId} in ${failure.store}: ${failure.reason}`),
          ...(report.failed.length > 0
            ? [`${report.failed.length} documents not moved: they stay readable in their store; run the command again`]
            : []),
        ].join('\n'),
      );
      if (report.failed.length > 0) exitCode = 1;
    });

  program
    .command('seed')
    .description('add deterministic, realistic demo data')
    .requiredOption('--tenders <n>', 'number of tenders', positiveInteger)
    .option('--seed <n>', 'random seed: the same seed and --now give the same data', positiveInteger, 1)
    .option('--now <timestamp>', 'reference time, tenders fall in the two years before it (default: today 00:00 UTC)', timestamp)
    .option('--json', 'machine-readable output')
    .action(async (options: { tenders: number; seed: number; now?: Date; json?: boolean }) => {
      const bar =
        options.json || !io.stderr.isTTY
          ? undefined
          : new SingleBar({ stream: io.stderr, format: 'seeding [{bar}] {value}/{total} tenders, {eta}s left' });
      bar?.start(options.tenders, 0);
      const started = Date.now();
      const result = await withDatabase((orm) =>
        new SeedService(orm.em.fork()).run({
          tenders: options.tenders,
          seed: options.seed,
          referenceTime: options.now,
          onProgress: (done) => bar?.update(done),
        }),
      );
      bar?.stop();
      const seconds = (Date.now() - started) / 1000;
      print(
        options.json,
        {
          tenders: result.tenders,
          seconds,
          insurers: result.insurers.map((i) => i.id),
          broker_companies: result.brokerCompanies.map((b) => b.id),
        },
        `seeded ${result.tenders} tenders in ${seconds.toFixed(1)} s`,
      );
    });

  addQuestionSetCommands(program, {
    settings,
    withDatabase,
    logLine,
    errorLine,
    printError,
    exit: (code) => {
      exitCode = code;
    },
  });

  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (failure: unknown) {
    // Commander printed its own message: help and the version exit 0, anything else is a usage error.
    if (failure instanceof CommanderError) return failure.exitCode === 0 ? 0 : USAGE_ERROR;
    printError(failure);
    return isUsageError(failure) ? USAGE_ERROR : 1;
  }
  return exitCode;
}
