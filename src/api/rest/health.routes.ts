import type { MikroORM } from '@mikro-orm/core';
import { Router } from 'express';
import { DomainError } from '../../platform/errors/domain-error';
import { sendProblem } from '../http/problem';
import type { Metrics } from '../http/metrics';
import { VERSION } from '../../platform/version';

/** Liveness, readiness and metrics: for orchestrators and Prometheus, without a token. */
export function operationsRoutes(orm: MikroORM, metrics: Metrics): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', version: VERSION });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await orm.em.getConnection().execute('select 1');
      const pending = await orm.getMigrator().getPendingMigrations();
      if (pending.length > 0) {
        sendProblem(res, new DomainError('SERVICE_UNAVAILABLE', `${pending.length} database migrations are not applied`));
        return;
      }
      res.json({ status: 'ready' });
    } catch {
      sendProblem(res, new DomainError('SERVICE_UNAVAILABLE', 'The database is not reachable'));
    }
  });
  router.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
}
