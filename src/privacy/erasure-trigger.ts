import { registerEnumType } from 'type-graphql';

/** Why a customer was erased: asked for (GraphQL, the CLI), or the retention period ran out. */
export enum ErasureTrigger {
  REQUEST = 'REQUEST',
  RETENTION = 'RETENTION',
}

registerEnumType(ErasureTrigger, { name: 'ErasureTrigger', description: 'Why a customer was erased.' });
