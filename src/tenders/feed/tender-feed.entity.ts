import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * The revision of what one audience of the tender lists sees (`all`, `broker:<id>`, `insurer:<id>`), and of the
 * parties every audience sees (`parties`): raised in the transaction of every change that audience could see, so
 * a REST answer's entity tag is read from one row instead of from the page (tender-feed.ts).
 */
@Entity({ tableName: 'tender_feed' })
export class TenderFeed {
  @PrimaryKey({ type: 'string', length: 80 })
  scope!: string;

  @Property({ type: 'bigint' })
  revision!: string;
}
