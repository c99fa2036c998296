import { Entity, Enum, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { newId } from '../db/ids';
import { Insurer } from '../insurers/insurer.entity';
import { BrokerCompany } from '../parties/broker-company.entity';
import { Role } from './role';

@Entity({ tableName: 'api_client' })
export class ApiClient {
  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @Unique()
  @Property({ type: 'string', length: 64 })
  appId!: string;

  /** `scrypt$<salt>$<hash>`; the secret itself is shown once at creation and never stored. */
  @Property({ type: 'string', length: 256, hidden: true })
  secretHash!: string;

  @Enum({ items: () => Role, type: 'string', length: 16 })
  role!: Role;

  @ManyToOne({ entity: () => Insurer, nullable: true })
  insurer?: Insurer;

  @ManyToOne({ entity: () => BrokerCompany, nullable: true })
  brokerCompany?: BrokerCompany;

  @Property({ type: 'string', length: 200, default: '' })
  description: string = '';

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();
}
