import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121233219 } from './Migration20261121233219';
import { Migration20261121235422 } from './Migration20261121235422';
import { Migration20261122000657 } from './Migration20261122000657';
import { Migration20261122011418 } from './Migration20261122011418';
import { Migration20261122024541 } from './Migration20261122024541';
import { Migration20261122200000 } from './Migration20261122200000';
import { Migration20261122210000 } from './Migration20261122210000';
import { Migration20261122235305 } from './Migration20261122235305';
import { Migration20261123000652 } from './Migration20261123000652';
import { Migration20261123003111 } from './Migration20261123003111';
import { Migration20261123021021 } from './Migration20261123021021';
import { Migration20261125192034 } from './Migration20261125192034';
import { Migration20261125194501 } from './Migration20261125194501';
import { Migration20261125221826 } from './Migration20261125221826';
import { Migration20261125230011 } from './Migration20261125230011';
import { Migration20261126023014 } from './Migration20261126023014';
import { Migration20261126023340 } from './Migration20261126023340';
import { Migration20261126023737 } from './Migration20261126023737';
import { Migration20261126025150 } from './Migration20261126025150';
import { Migration20261126031245 } from './Migration20261126031245';
import { Migration20261128084848 } from './Migration20261128084848';

/** Every migration in order; `npm run cli -- db:migration:create` generates a new one and adds it here. */
export const sqliteMigrations: MigrationObject[] = [
  { name: 'Migration20261121233219', class: Migration20261121233219 },
  { name: 'Migration20261121235422', class: Migration20261121235422 },
  { name: 'Migration20261122000657', class: Migration20261122000657 },
  { name: 'Migration20261122011418', class: Migration20261122011418 },
  { name: 'Migration20261122024541', class: Migration20261122024541 },
  { name: 'Migration20261122200000', class: Migration20261122200000 },
  { name: 'Migration20261122210000', class: Migration20261122210000 },
  { name: 'Migration20261122235305', class: Migration20261122235305 },
  { name: 'Migration20261123000652', class: Migration20261123000652 },
  { name: 'Migration20261123003111', class: Migration20261123003111 },
  { name: 'Migration20261123021021', class: Migration20261123021021 },
  { name: 'Migration20261125192034', class: Migration20261125192034 },
  { name: 'Migration20261125194501', class: Migration20261125194501 },
  { name: 'Migration20261125221826', class: Migration20261125221826 },
  { name: 'Migration20261125230011', class: Migration20261125230011 },
  { name: 'Migration20261126023014', class: Migration20261126023014 },
  { name: 'Migration20261126023340', class: Migration20261126023340 },
  { name: 'Migration20261126023737', class: Migration20261126023737 },
  { name: 'Migration20261126025150', class: Migration20261126025150 },
  { name: 'Migration20261126031245', class: Migration20261126031245 },
  { name: 'Migration20261128084848', class: Migration20261128084848 },
];
