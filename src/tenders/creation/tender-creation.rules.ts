import { Type } from '@sinclair/typebox';
import { PersonRules } from '../../parties';
import { TENDER_FIELD_LIST, type InputColumns } from '../shape/tender-fields';

/** The creation input's fields the tender's shape declares: their rules come from it, in its order. */
const INPUT_FIELDS = TENDER_FIELD_LIST.filter((field) => field.input);

/** The creation input's rules: the declared fields' and the submitter's (a person, not a field of the tender). */
export const CreateTenderRules = Type.Object({
  ...Object.fromEntries(INPUT_FIELDS.map((field) => [field.name, field.input!])),
  submitter: PersonRules,
});

/** The columns a new tender takes from its creation input as they are, text trimmed. */
export function inputColumnsOf(input: InputColumns): InputColumns {
  return Object.fromEntries(
    INPUT_FIELDS.filter((field) => field.source === 'column').map((field) => {
      const value = input[field.name as keyof InputColumns] as unknown;
      return [field.name, typeof value === 'string' ? value.trim() : (value ?? null)];
    }),
  ) as InputColumns;
}
