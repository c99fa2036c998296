import type { AnswerProblem } from '../../../risk';
import { textProblem } from '../../../platform/validation/rules';
import type { FormFields } from '../link-page';
import type { PageLanguage, PageTexts } from '../page-texts';
import { readTypedNumber } from '../typed-number';

/**
 * A question set (JSON Schema 2020-12 with x-label, x-help, x-order, x-unit; docs/risk-assessment.md) as an HTML form,
 * and a form's fields back as answers. Every field is named by its answer's JSON pointer (`/locations/0/city`), so the
 * problems the risk assessment reports (by pointer, the same as on the API) land on their fields. Nothing here
 * validates: the answers go to the risk assessment's own rules, and what they say is shown.
 */
type Schema = Record<string, unknown>;

/** When a question is asked: its sibling `field` has `value` (if/then), or is answered at all (dependentRequired). */
interface Condition {
  field: string;
  value?: string;
  label: string;
  valueLabel?: string;
}

interface NodeBase {
  /** The answer's JSON pointer: the field's name. */
  name: string;
  /** The element's id, from the pointer. */
  id: string;
  label: string;
  help?: string;
  /** Required whenever its parent is answered (not only under a condition). */
  required: boolean;
  condition?: Condition;
  error?: string;
}

export interface FieldNode extends NodeBase {
  kind: 'field';
  control: 'text' | 'textarea' | 'number' | 'date' | 'email' | 'url' | 'select' | 'yesno';
  type: 'string' | 'number' | 'integer' | 'boolean' | 'enum';
  options?: { value: string; label: string }[];
  enumValues?: unknown[];
  unit?: string;
  maxLength?: number;
  /** What the field shows: the answer, or what was typed. */
  value: string;
}

interface GroupNode extends NodeBase {
  kind: 'group';
  children: FormNode[];
}

interface ListNode extends NodeBase {
  kind: 'list';
  items: { name: string; id: string; number: number; children: FormNode[] }[];
  maxItems: number;
  /** The hidden field that says how many items the form holds. */
  countField: string;
}

export type FormNode = FieldNode | GroupNode | ListNode;

export interface QuestionnaireForm {
  title: string;
  nodes: FormNode[];
}

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

const escapeSegment = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** An element id from a pointer: letters, digits and dashes only, unique per pointer (`/a_b/0` → `q-a_5fb-0`). */
export const idOf = (pointer: string): string =>
  `q${pointer.replace(/[^A-Za-z0-9/]/g, (char) => `_${char.charCodeAt(0).toString(16)}`).replace(/\//g, '-')}`;

const UNITS: Record<string, Record<PageLanguage, string>> = {
  employees: { de: 'Beschäftigte', en: 'employees' },
  records: { de: 'Datensätze', en: 'records' },
  companies: { de: 'Gesellschaften', en: 'companies' },
  months: { de: 'Monate', en: 'months' },
};

/** The node a `$ref` to a local definition names, with the referring node's own keywords over it. */
function resolved(root: Schema, node: Schema, depth = 0): Schema {
  const ref = node.$ref;
  if (typeof ref !== 'string' || depth > 16) return node;
  const match = /^#\/\$defs\/([^/]+)$/.exec(ref);
  const defs = root.$defs;
  const target = match && isObject(defs) ? defs[match[1].replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  if (!isObject(target)) return node;
  return resolved(root, { ...target, ...Object.fromEntries(Object.entries(node).filter(([key]) => key !== '$ref')) }, depth + 1);
}

const textIn = (value: unknown, lang: PageLanguage): string | undefined =>
  isObject(value) && typeof value[lang] === 'string' ? value[lang] : isObject(value) && typeof value.en === 'string' ? value.en : undefined;

/** A code as a person reads it: `within_72_hours` → `within 72 hours`. */
const readable = (code: unknown): string => String(code).replace(/_/g, ' ');

/** The form's value of an answer: text as it is, numbers in their JSON form, booleans `true`/`false`. */
function formValue(answer: unknown): string {
  if (typeof answer === 'string') return answer;
  if (typeof answer === 'number' || typeof answer === 'boolean') return String(answer);
  return '';
}

/** The conditions an object states for its properties: `if`/`then` with a `const` (or one-value `enum`), `dependentRequired`. */
function conditionsOf(object: Schema, base: string, labelOf: (name: string) => string, t: PageTexts): Map<string, Condition> {
  const conditions = new Map<string, Condition>();
  // The object's own if/then is one more branch, besides those in its allOf.
  const branches: unknown[] = [...(Array.isArray(object.allOf) ? (object.allOf as unknown[]) : []), ...('if' in object ? [object] : [])];
  for (const branch of branches) {
    if (!isObject(branch) || !isObject(branch.if) || !isObject(branch.then)) continue;
    const properties = isObject(branch.if.properties) ? branch.if.properties : {};
    const [name, rule] = Object.entries(properties)[0] ?? [];
    if (!name || !isObject(rule)) continue;
    const value: unknown =
      'const' in rule ? rule.const : Array.isArray(rule.enum) && rule.enum.length === 1 ? (rule.enum[0] as unknown) : undefined;
    if (value === undefined) continue;
    const valueLabel = value === true ? t.yes : value === false ? t.no : readable(value);
    for (const required of Array.isArray(branch.then.required) ? branch.then.required : []) {
      if (typeof required === 'string')
        conditions.set(required, { field: `${base}/${escapeSegment(name)}`, value: formValue(value), label: labelOf(name), valueLabel });
    }
  }
  if (isObject(object.dependentRequired)) {
    for (const [name, dependents] of Object.entries(object.dependentRequired)) {
      for (const dependent of Array.isArray(dependents) ? dependents : []) {
        if (typeof dependent === 'string' && !conditions.has(dependent))
          conditions.set(dependent, { field: `${base}/${escapeSegment(name)}`, label: labelOf(name) });
      }
    }
  }
  return conditions;
}

const order = (schema: Schema) => (typeof schema['x-order'] === 'number' ? schema['x-order'] : Number.MAX_SAFE_INTEGER);

/** The form of a question set in `lang`, showing `answers` (saved, or as typed). */
export function buildForm(schema: Schema, answers: unknown, lang: PageLanguage, t: PageTexts): QuestionnaireForm {
  const objectNodes = (object: Schema, base: string, values: unknown, depth: number): FormNode[] => {
    if (depth > 12 || !isObject(object.properties)) return [];
    const properties = object.properties;
    const required = new Set(Array.isArray(object.required) ? object.required : []);
    const labelOf = (name: string) => {
      const property = isObject(properties[name]) ? resolved(schema, properties[name]) : {};
      return textIn(property['x-label'], lang) ?? name;
    };
    const conditions = conditionsOf(object, base, labelOf, t);
    return Object.entries(properties)
      .filter((entry): entry is [string, Schema] => isObject(entry[1]))
      .map(([name, raw]) => [name, resolved(schema, raw)] as const)
      .sort((a, b) => order(a[1]) - order(b[1]))
      .map(([name, property]) =>
        nodeOf(property, `${base}/${escapeSegment(name)}`, isObject(values) ? values[name] : undefined, depth, {
          required: required.has(name),
          condition: conditions.get(name),
          label: labelOf(name),
        }),
      );
  };

  const nodeOf = (
    property: Schema,
    name: string,
    value: unknown,
    depth: number,
    context: { required: boolean; condition?: Condition; label: string },
  ): FormNode => {
    const base = { name, id: idOf(name), help: textIn(property['x-help'], lang), ...context };
    if (property.type === 'object') return { ...base, kind: 'group', children: objectNodes(property, name, value, depth + 1) };
    if (property.type === 'array') {
      const items = isObject(property.items) ? resolved(schema, property.items) : {};
      const given = Array.isArray(value) ? value : [];
      return {
        ...base,
        kind: 'list',
        maxItems: typeof property.maxItems === 'number' ? property.maxItems : 50,
        countField: `_items${name}`,
        items: given.map((item, index) => ({
          name: `${name}/${index}`,
          id: idOf(`${name}/${index}`),
          number: index + 1,
          children: objectNodes(items, `${name}/${index}`, item, depth + 1),
        })),
      };
    }
    const unitCode = typeof property['x-unit'] === 'string' ? property['x-unit'] : undefined;
    const field = {
      ...base,
      kind: 'field' as const,
      value: formValue(value),
      unit: unitCode ? (UNITS[unitCode]?.[lang] ?? unitCode) : undefined,
      maxLength: typeof property.maxLength === 'number' ? property.maxLength : undefined,
    };
    if (Array.isArray(property.enum))
      return {
        ...field,
        control: 'select',
        type: 'enum',
        enumValues: property.enum,
        options: property.enum.map((option) => ({ value: formValue(option), label: readable(option) })),
      };
    if (property.type === 'boolean') return { ...field, control: 'yesno', type: 'boolean' };
    if (property.type === 'integer' || property.type === 'number') return { ...field, control: 'number', type: property.type };
    const format = property.format;
    const control =
      format === 'date'
        ? 'date'
        : format === 'email'
          ? 'email'
          : format === 'uri'
            ? 'url'
            : (field.maxLength ?? 0) > 200
              ? 'textarea'
              : 'text';
    return { ...field, control, type: 'string' };
  };

  return { title: textIn(schema['x-label'], lang) ?? '', nodes: objectNodes(schema, '', answers, 0) };
}

export interface ParsedForm {
  answers: Record<string, unknown>;
  /** Problems the form itself finds before the rules see the answers (control characters), by field name. */
  problems: AnswerProblem[];
  /** Fields the form does not ask for: the form is refused. */
  unknown: string[];
}

/** Names every form carries besides its questions. */
const META = new Set(['_csrf', '_action', '_version']);

/**
 * A form's fields as answers, walking the question set's form: an empty field is no answer; a number, a yes/no and a
 * choice become their JSON values (what cannot be read stays text, so the rules say what is wrong with it, as on the
 * API); a group without any answer is left out; a list has as many items as its count field says.
 */
export function parseForm(schema: Schema, fields: FormFields, lang: PageLanguage, t: PageTexts): ParsedForm {
  const problems: AnswerProblem[] = [];
  const known = new Set<string>(META);
  // The form's shape with the counts of its lists taken from the form: built level by level as counts are read.
  const read = (nodes: FormNode[]): Record<string, unknown> => {
    const answers: Record<string, unknown> = {};
    for (const node of nodes) {
      const key = node.name.split('/').pop()!.replace(/~1/g, '/').replace(/~0/g, '~');
      const value = valueOf(node);
      if (value !== undefined) answers[key] = value;
    }
    return answers;
  };
  const valueOf = (node: FormNode): unknown => {
    if (node.kind === 'group') {
      const answers = read(node.children);
      return Object.keys(answers).length > 0 ? answers : undefined;
    }
    if (node.kind === 'list') {
      // The items the form's count field says (withCounts built them); an empty list is no answer.
      known.add(node.countField);
      return node.items.length > 0 ? node.items.map((item) => read(item.children)) : undefined;
    }
    known.add(node.name);
    const raw = fields[node.name];
    if (raw === undefined || raw.trim() === '') return undefined;
    const multiLine = node.control === 'textarea';
    // The gateway's text rule (docs/errors-and-limits.md): no control, bidi or invisible format characters; line
    // breaks only in a text of several lines.
    if (textProblem(raw, multiLine ? 'lines' : 'line')) {
      problems.push({ pointer: node.name, message: t.problems.controlCharacters });
      return undefined;
    }
    const text = multiLine ? raw.replace(/\r\n?/g, '\n') : raw;
    switch (node.type) {
      case 'boolean':
        return text === 'true' ? true : text === 'false' ? false : text;
      case 'integer':
      case 'number':
        return readTypedNumber(text, lang) ?? text;
      case 'enum':
        return node.enumValues?.find((option) => formValue(option) === text) ?? text;
      default:
        return text;
    }
  };
  const top = buildForm(schema, {}, lang, t);
  // Lists' items are read through a form built with their count: the first pass finds the top-level counts.
  const answers = read(withCounts(schema, top.nodes, fields, lang, t));
  const unknown = Object.keys(fields).filter((name) => !known.has(name));
  return { answers, problems, unknown };
}

/** The form's nodes with every list (at any depth) holding as many items as the form's count fields say. */
function withCounts(schema: Schema, nodes: FormNode[], fields: FormFields, lang: PageLanguage, t: PageTexts): FormNode[] {
  let answers: Record<string, unknown> = {};
  let current = nodes;
  // Each pass can reveal lists inside the items of the lists before; a question set nests a few levels at most.
  for (let pass = 0; pass < 6; pass++) {
    let changed = false;
    visit(current, (node) => {
      if (node.kind !== 'list') return;
      const count = Math.min(Math.max(Number.parseInt(fields[node.countField] ?? '0', 10) || 0, 0), node.maxItems);
      if (count !== node.items.length) {
        answers = setAt(
          answers,
          node.name,
          Array.from({ length: count }, () => ({})),
        );
        changed = true;
      }
    });
    if (!changed) break;
    current = buildForm(schema, answers, lang, t).nodes;
  }
  return current;
}

function visit(nodes: FormNode[], see: (node: FormNode) => void): void {
  for (const node of nodes) {
    see(node);
    if (node.kind === 'group') visit(node.children, see);
    if (node.kind === 'list') for (const item of node.items) visit(item.children, see);
  }
}

/** The node named `pointer`, anywhere in the form. */
export function findNode(nodes: FormNode[], pointer: string): FormNode | undefined {
  let found: FormNode | undefined;
  visit(nodes, (node) => {
    if (node.name === pointer) found ??= node;
  });
  return found;
}

const segmentsOf = (pointer: string): string[] =>
  pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));

/** `answers` with `value` at `pointer` (objects and arrays made on the way); a copy, the original unchanged. */
export function setAt(answers: Record<string, unknown>, pointer: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(answers);
  const segments = segmentsOf(pointer);
  let here: Record<string, unknown> | unknown[] = copy;
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    const container = here as Record<string, unknown>;
    if (last) container[segment] = value;
    else {
      if (!isObject(container[segment]) && !Array.isArray(container[segment]))
        container[segment] = /^\d+$/.test(segments[index + 1]) ? [] : {};
      here = container[segment] as Record<string, unknown>;
    }
  });
  return copy;
}

/** The value at `pointer` in `answers`, if any. */
export function getAt(answers: unknown, pointer: string): unknown {
  let here: unknown = answers;
  for (const segment of segmentsOf(pointer)) {
    if (Array.isArray(here)) here = here[Number(segment)];
    else if (isObject(here)) here = here[segment];
    else return undefined;
  }
  return here;
}

/** A problem's message in the page's language: the rules speak English; the common ones are said in German too. */
function problemText(message: string, lang: PageLanguage, t: PageTexts): string {
  if (message === 'required' || message.startsWith('required when')) return t.problems.required;
  if (lang === 'en') return message.charAt(0).toUpperCase() + message.slice(1) + (message.endsWith('.') ? '' : '.');
  const rules: [RegExp, (match: RegExpExecArray) => string][] = [
    [/^must be >= (.+)$/, (m) => `Mindestens ${m[1]}.`],
    [/^must be > (.+)$/, (m) => `Mehr als ${m[1]}.`],
    [/^must be <= (.+)$/, (m) => `Höchstens ${m[1]}.`],
    [/^must be < (.+)$/, (m) => `Weniger als ${m[1]}.`],
    [/^must NOT have more than (\d+) characters$/, (m) => `Höchstens ${m[1]} Zeichen.`],
    [/^must NOT have fewer than (\d+) characters$/, (m) => `Mindestens ${m[1]} Zeichen.`],
    [/^must NOT have more than (\d+) items$/, (m) => `Höchstens ${m[1]} Einträge.`],
    [/^must NOT have fewer than (\d+) items$/, (m) => `Mindestens ${m[1]} Einträge.`],
    [/^must be integer$/, () => 'Bitte eine ganze Zahl eingeben.'],
    [/^must be number$/, () => t.problems.notNumber],
    [/^must be boolean$/, () => 'Bitte Ja oder Nein wählen.'],
    [/^must be one of: /, () => 'Bitte einen der angebotenen Werte wählen.'],
    [/^must match format "email"$/, () => 'Bitte eine gültige E-Mail-Adresse eingeben.'],
    [/^must match format "date"$/, () => 'Bitte ein Datum eingeben.'],
    [/^must match format "uri"$/, () => 'Bitte eine vollständige Adresse eingeben (https://…).'],
    [/^must match pattern /, () => 'Das Format stimmt nicht.'],
    [/^not a question of this set$/, () => 'Keine Frage dieses Fragebogens.'],
  ];
  for (const [pattern, say] of rules) {
    const match = pattern.exec(message);
    if (match) return say(match);
  }
  return message;
}

/**
 * Puts each problem on the node its pointer names, or the nearest node around it (an item's missing group goes to the
 * list); what no node holds comes back, for the top of the form. Answers the summary, in the form's order.
 */
export function placeProblems(
  nodes: FormNode[],
  problems: readonly AnswerProblem[],
  lang: PageLanguage,
  t: PageTexts,
): { summary: { href: string; text: string }[]; general: string[] } {
  const general: string[] = [];
  for (const problem of problems) {
    let pointer = problem.pointer;
    let node = findNode(nodes, pointer);
    while (!node && pointer.includes('/')) {
      pointer = pointer.slice(0, pointer.lastIndexOf('/'));
      node = pointer ? findNode(nodes, pointer) : undefined;
    }
    const text = problemText(problem.message, lang, t);
    if (!node) general.push(text);
    else node.error = node.error ? `${node.error} ${text}` : text;
  }
  const summary: { href: string; text: string }[] = [];
  visit(nodes, (node) => {
    if (node.error)
      summary.push({
        href: `#${node.kind === 'field' && node.control === 'yesno' ? `${node.id}-true` : node.id}`,
        text: `${node.label}: ${node.error}`,
      });
  });
  return { summary, general };
}
