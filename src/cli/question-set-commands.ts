import { type Command, InvalidArgumentError } from 'commander';
import { isJsonObject } from '../platform/validation/json';
import { operatorViewer } from '../access';
import { DomainError, badInput } from '../platform/errors/domain-error';
import { LIMITS } from '../platform/validation/rules';
import {
  answersShapeProblems,
  diffQuestionSets,
  questionSetProblems,
  QuestionSetService,
  validatorOf,
  type AnswerProblem,
  type Publication,
  type QuestionSetChange,
} from '../risk';
import { quotesModule } from '../quotes';
import { webhooksModule } from '../webhooks';
import type { CommandRun } from './command-run';
import { readJsonFile } from './json-file';

/**
 * The question set commands (docs/risk-assessment.md#cli): publish a file, diff two, validate answers. Exit codes:
 * 0 done (published, nothing breaking, the answers fit); 1 refused (problems in the schema or the answers, a
 * breaking change, an unknown product); 2 a file the command does not read (missing, too large, not JSON, not the
 * format) or another usage error.
 */

/** Who publishes from the CLI: an internal operator, recorded as `cli` (as customers:erase records its erasures). */
const OPERATOR = operatorViewer('cli');

/** What the gateway does on a publication through GraphQL: the insurers that require the product's questions hear of it. */
const RISK_LISTENERS = [...quotesModule.riskEvents, ...webhooksModule.riskEvents];

/**
 * Files are read up to four times what they may hold as compact JSON: room for indentation (a set indented by four
 * spaces is about twice its compact size) and the publish format's fields, and still no 10 MiB read.
 */
const QUESTION_SET_FILE_BYTES = 4 * LIMITS.questionSetBytes;
const ANSWERS_FILE_BYTES = 4 * LIMITS.riskAnswersBytes;

const PUBLISH_FIELDS = ['product', 'lineOfBusinessId', 'schema'];

interface PublishFile {
  product: string;
  lineOfBusinessId: string;
  schema: Record<string, unknown>;
}

/** The publish format, `{ "product", "lineOfBusinessId", "schema" }` and nothing else; refused naming each fault. */
function publishFile(path: string, value: unknown): PublishFile {
  if (!isJsonObject(value)) throw badInput(`${path} must be a JSON object { "product", "lineOfBusinessId", "schema" }`);
  const faults = Object.keys(value)
    .filter((key) => !PUBLISH_FIELDS.includes(key))
    .map((key) => ({ parameter: key, message: 'is not a field of the publish format (product, lineOfBusinessId, schema)' }));
  for (const field of PUBLISH_FIELDS) {
    const given = value[field];
    if (given === undefined) faults.push({ parameter: field, message: 'required' });
    else if (field === 'schema' ? !isJsonObject(given) : typeof given !== 'string')
      faults.push({ parameter: field, message: field === 'schema' ? 'must be a JSON object (the JSON Schema)' : 'must be a string' });
  }
  if (faults.length > 0) throw badInput(`${path} is not in the publish format { "product", "lineOfBusinessId", "schema" }`, faults);
  return value as unknown as PublishFile;
}

/**
 * The schema a diff compares: the `schema` of a file in the publish format, or the file's own document. `schema` is
 * no JSON Schema keyword (question sets are checked strictly), so a file with one is in the publish format.
 */
function schemaIn(path: string, value: unknown): unknown {
  return isJsonObject(value) && Object.hasOwn(value, 'schema') ? publishFile(path, value).schema : value;
}

/** A pointer into the answers or the schema, as a person reads it: the whole document has the empty pointer. */
const shown = (pointer: string) => pointer || '(root)';

function formatChange(change: QuestionSetChange): string {
  return `  ${shown(change.pointer)}  ${change.kind}  ${change.breaking ? 'BREAKING' : 'not breaking'}  ${change.description}`;
}

function formatPublication({ questionSet, changes, affectedTenderIds, affectedInsurerIds }: Publication): string {
  const lines = [`published ${questionSet.product} version ${questionSet.version} (sha256 ${questionSet.digest})`];
  if (questionSet.version === 1) lines.push('its first version: nothing to compare');
  else lines.push(changes.length === 0 ? 'no changes from the version before' : `changes from version ${questionSet.version - 1}:`);
  lines.push(...changes.map(formatChange));
  if (affectedTenderIds.length > 0) lines.push(`tenders moved onto it (none quoted from yet): ${affectedTenderIds.join(', ')}`);
  if (affectedInsurerIds.length > 0)
    lines.push(`insurers whose required questions a breaking change touches: ${affectedInsurerIds.join(', ')}`);
  return lines.join('\n');
}

function versionNumber(value: string): number {
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new InvalidArgumentError('expected a version number from 1');
  return Number(value);
}

function answerPointer(value: string, previous: string[] = []): string[] {
  if (!/^(\/[^/]*)+$/.test(value)) throw new InvalidArgumentError('expected a JSON pointer into the answers, e.g. /employees');
  return [...previous, value];
}

export function addQuestionSetCommands(program: Command, run: CommandRun): void {
  program
    .command('question-sets:publish <file>')
    .description(
      'publish the next version of a product\'s question set from a file { "product", "lineOfBusinessId", "schema" }, as ' +
        'publishQuestionSet does, and print the changes from the version before. Exit code 0 published, 1 refused ' +
        '(schema problems, a breaking change without --acknowledge-breaking), 2 a file it does not read',
    )
    .option('--acknowledge-breaking', "publish even if the changes break answers or insurers' requirements valid before")
    .option('--json', 'machine-readable output')
    .action(async (path: string, options: { acknowledgeBreaking?: boolean; json?: boolean }) => {
      const input = publishFile(path, await readJsonFile(path, QUESTION_SET_FILE_BYTES));
      const publication = await run
        .withDatabase((orm) =>
          new QuestionSetService(orm.em.fork(), OPERATOR, RISK_LISTENERS).publish({
            ...input,
            acknowledgeBreaking: options.acknowledgeBreaking === true,
          }),
        )
        .catch((refusal: unknown) => {
          // The gateway refused what the file holds (not how the command was used): 1, as for a failed check.
          if (!(refusal instanceof DomainError)) throw refusal;
          run.printError(refusal);
          if (refusal.code === 'BREAKING_CHANGE' && !options.json)
            run.errorLine('nothing was published; publish it anyway with --acknowledge-breaking');
          run.exit(1);
        });
      if (!publication) return;
      const { questionSet, changes, affectedTenderIds, affectedInsurerIds } = publication;
      run.logLine(
        options.json
          ? JSON.stringify({
              product: questionSet.product,
              line_of_business_id: questionSet.lineOfBusiness.id,
              version: questionSet.version,
              digest: questionSet.digest,
              changes,
              affected_tender_ids: affectedTenderIds,
              affected_insurer_ids: affectedInsurerIds,
            })
          : formatPublication(publication),
      );
    });

  program
    .command('question-sets:diff <a> <b>')
    .description(
      'the changes from one question set to another (each file a JSON Schema, or in the publish format), as a JSON ' +
        'array of { pointer, kind, breaking, description }; needs no database. Exit code 0 nothing breaking, 1 a ' +
        'breaking change (or a schema that may not be published), 2 a file it does not read',
    )
    .option(
      '--required <pointers...>',
      'questions insurers require (as publication checks against their requirements): removing one is breaking',
      answerPointer,
    )
    .option('--json', 'machine-readable errors (the changes are JSON either way)')
    .action(async (pathA: string, pathB: string, options: { required?: string[] }) => {
      const [before, after] = [
        schemaIn(pathA, await readJsonFile(pathA, QUESTION_SET_FILE_BYTES)),
        schemaIn(pathB, await readJsonFile(pathB, QUESTION_SET_FILE_BYTES)),
      ];
      // Only schemas that may be published are compared: the checks bound what the comparison walks.
      let refused = false;
      for (const [path, schema] of [
        [pathA, before],
        [pathB, after],
      ] as const) {
        const problems = questionSetProblems(schema);
        if (problems.length === 0) continue;
        run.printError(new DomainError('BAD_USER_INPUT', `${path} is not a question set that may be published`, [], problems));
        refused = true;
      }
      if (refused) return run.exit(1);
      const changes = diffQuestionSets(
        before as Record<string, unknown>,
        after as Record<string, unknown>,
        new Set(options.required ?? []),
      );
      run.logLine(JSON.stringify(changes, null, 2));
      run.exit(changes.some((change) => change.breaking) ? 1 : 0);
    });

  program
    .command('question-sets:validate <product> <answers>')
    .description(
      "check answers (a JSON file) against the product's latest question set, or the version given, and print the " +
        'problems as a JSON array of { pointer, message }: the same saveRiskAnswers gives on submitting them. Exit ' +
        'code 0 none, 1 problems (or no such product or version), 2 a file it does not read',
    )
    .option('--version <n>', "the version (default: the product's latest that is not retired)", versionNumber)
    .option('--json', 'machine-readable errors (the problems are JSON either way)')
    .action(async (product: string, path: string, options: { version?: number }) => {
      const answers = await readJsonFile(path, ANSWERS_FILE_BYTES);
      const questionSet = await run
        .withDatabase((orm) => new QuestionSetService(orm.em.fork(), OPERATOR).find(product, options.version))
        .catch((unknown: unknown) => {
          if (!(unknown instanceof DomainError && unknown.code === 'NOT_FOUND')) throw unknown;
          run.printError(unknown);
          run.exit(1);
        });
      if (!questionSet) return;
      // As saveRiskAnswers with submit: the answers' shape first, then the whole set.
      const shape = answersShapeProblems(answers);
      const problems: AnswerProblem[] = shape.length > 0 ? shape : validatorOf(questionSet).submitted(answers);
      run.logLine(JSON.stringify(problems, null, 2));
      run.exit(problems.length > 0 ? 1 : 0);
    });
}
