import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { newId } from '../platform/db/ids';

@Entity({ tableName: 'line_of_business' })
@ObjectType('LineOfBusiness', { simpleResolvers: true })
export class LineOfBusiness {
  @Field(() => ID)
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Field(() => String)
  @Unique()
  @Property({ type: 'string', length: 100 })
  name!: string;
}
