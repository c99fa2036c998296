import { Router } from 'express';
import { Role } from '../auth/role';
import { assertRole } from '../auth/viewer';
import { jsonBody, methodNotAllowed } from '../http/json-body';
import { requestContext, type ContextDeps } from '../http/request-context';
import { parseCallback, receiveCallback } from './quote-callback.service';

export const CALLBACK_PATH = '/aggregation-gateway/v1/public/producer-integration/quotes/available';

/** Spec 4.5, for insurer tokens: 202 at once; the quote is fetched in the background. */
export function quoteCallbackRoutes(deps: ContextDeps): Router {
  const router = Router();
  router.post(CALLBACK_PATH, ...jsonBody('4kb'), async (req, res) => {
    const { em, viewer } = await requestContext(deps, req);
    assertRole(viewer, [Role.INSURER]);
    const quoteRequestId = parseCallback(req.body);
    if (await receiveCallback(em, viewer, quoteRequestId)) deps.wakeDispatcher();
    res.status(202).json({ status: 'accepted', quote_request_id: quoteRequestId });
  });
  router.all(CALLBACK_PATH, methodNotAllowed('POST'));
  return router;
}
