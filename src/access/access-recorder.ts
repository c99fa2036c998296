import { registerEnumType } from 'type-graphql';
import { Role } from './role';
import type { Viewer } from './viewer';

/**
 * Where an answer carrying a tender's personal data went out (the access log, docs/privacy.md). Webhook payloads are
 * thin (ids and statuses only) and carry none: `WEBHOOK` joins the list with the first payload that does.
 */
export enum AccessSurface {
  REST = 'REST',
  GRAPHQL = 'GRAPHQL',
  DOCUMENT = 'DOCUMENT',
}
registerEnumType(AccessSurface, { name: 'AccessSurface', description: 'The surface a read of personal data went out on.' });

/** The surface and the operation (a GraphQL field, or a REST route) an answer goes out on. */
export interface AccessChannel {
  surface: AccessSurface;
  operation: string;
}

/**
 * The port every surface records reads of personal data through; the privacy feature keeps them (a buffer written
 * in batches). `record` is synchronous and cheap: it never waits on the database.
 */
export interface AccessRecorder {
  record(tenderId: string, viewer: Viewer, channel: AccessChannel): void;
}

/** ACCESS_LOG=off, and whatever runs outside the app (the CLI, the seed): nothing is recorded. */
export const NO_ACCESS_RECORDS: AccessRecorder = { record: () => undefined };

/**
 * Whose reads are recorded: clients outside the company (insurers and brokers). Internal users and analysts are the
 * company itself, which holds the data; their reads are not disclosures.
 */
const readsAreRecorded = (viewer: Viewer): boolean => viewer.role === Role.INSURER || viewer.role === Role.BROKER;

/** Records that an answer carries the tender's personal data to the context's viewer, on its channel (GraphQL: `field`). */
export function recordRead(
  context: { viewer: Viewer; accessLog: AccessRecorder; channel?: AccessChannel },
  tenderId: string,
  field: string,
): void {
  if (!readsAreRecorded(context.viewer)) return;
  context.accessLog.record(tenderId, context.viewer, context.channel ?? { surface: AccessSurface.GRAPHQL, operation: field });
}
