import { Entity, Enum, ManyToOne, OptionalProps, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { Insurer } from '../insurers/insurer.entity';
import { BrokerCompany } from '../parties/broker-company.entity';
import { Role } from '../access';
import { LIMITS } from '../platform/validation/rules';

@Entity({ tableName: 'api_client' })
export class ApiClient {
  [OptionalProps]?: 'tokenGeneration' | 'disabledAt';

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

  @Property({ type: 'string', length: LIMITS.name, default: '' })
  description: string = '';

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();

  /** A disabled client gets no tokens, and its tokens are refused. */
  @Property({ type: Date, length: 3, nullable: true })
  disabledAt?: Date | null;

  /**
   * Carried in its tokens as `gen`: a token of an older generation is refused. Disabling and a secret rotation
   * that revokes tokens move it on, so every token issued before is refused at once by every instance.
   */
  @Property({ type: 'integer', default: 0 })
  tokenGeneration: number = 0;
}
