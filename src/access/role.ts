import { registerEnumType } from 'type-graphql';

export enum Role {
  INSURER = 'insurer',
  BROKER = 'broker',
  INTERNAL = 'internal',
  ANALYST = 'analyst',
}

registerEnumType(Role, { name: 'Role', description: 'Role of an API client, carried in its access tokens.' });

export const ROLES: readonly Role[] = Object.values(Role);
