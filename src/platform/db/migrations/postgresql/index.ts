import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122005416 } from './Migration20261122005416';
import { Migration20261122011428 } from './Migration20261122011428';
import { Migration20261122024545 } from './Migration20261122024545';
import { Migration20261122031500 } from './Migration20261122031500';
import { Migration20261122200000 } from './Migration20261122200000';
import { Migration20261122210000 } from './Migration20261122210000';
import { Migration20261122235309 } from './Migration20261122235309';
import { Migration20261123000712 } from './Migration20261123000712';
import { Migration20261123003114 } from './Migration20261123003114';
import { Migration20261123021026 } from './Migration20261123021026';
import { Migration20261125192043 } from './Migration20261125192043';
import { Migration20261125194500 } from './Migration20261125194500';
import { Migration20261125221832 } from './Migration20261125221832';
import { Migration20261125230016 } from './Migration20261125230016';
import { Migration20261126023022 } from './Migration20261126023022';
import { Migration20261126023346 } from './Migration20261126023346';
import { Migration20261126023743 } from './Migration20261126023743';
import { Migration20261126025208 } from './Migration20261126025208';
import { Migration20261126031253 } from './Migration20261126031253';
import { Migration20261128084855 } from './Migration20261128084855';
import { Migration20261128084925 } from './Migration20261128084925';

/** Every migration in order; `npm run cli -- db:migration:create` generates a new one and adds it here. */
export const postgresqlMigrations: MigrationObject[] = [
  { name: 'Migration20261122005416', class: Migration20261122005416 },
  { name: 'Migration20261122011428', class: Migration20261122011428 },
  { name: 'Migration20261122024545', class: Migration20261122024545 },
  { name: 'Migration20261122031500', class: Migration20261122031500 },
  { name: 'Migration20261122200000', class: Migration20261122200000 },
  { name: 'Migration20261122210000', class: Migration20261122210000 },
  { name: 'Migration20261122235309', class: Migration20261122235309 },
  { name: 'Migration20261123000712', class: Migration20261123000712 },
  { name: 'Migration20261123003114', class: Migration20261123003114 },
  { name: 'Migration20261123021026', class: Migration20261123021026 },
  { name: 'Migration20261125192043', class: Migration20261125192043 },
  { name: 'Migration20261125194500', class: Migration20261125194500 },
  { name: 'Migration20261125221832', class: Migration20261125221832 },
  { name: 'Migration20261125230016', class: Migration20261125230016 },
  { name: 'Migration20261126023022', class: Migration20261126023022 },
  { name: 'Migration20261126023346', class: Migration20261126023346 },
  { name: 'Migration20261126023743', class: Migration20261126023743 },
  { name: 'Migration20261126025208', class: Migration20261126025208 },
  { name: 'Migration20261126031253', class: Migration20261126031253 },
  { name: 'Migration20261128084855', class: Migration20261128084855 },
  { name: 'Migration20261128084925', class: Migration20261128084925 },
];
