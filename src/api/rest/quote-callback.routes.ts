import { Router } from 'express';
import { jsonBody, methodNotAllowed } from '../http/json-body';
import { LIMITS } from '../../platform/validation/rules';
import { authorisedContext } from '../http/request-context';
import { parseCallback, receiveCallback } from '../../quotes';

export const CALLBACK_PATH = '/aggregation-gateway/v1/public/producer-integration/quotes/available';

/** Spec 4.5, for insurer tokens: 202 at once; the quote is fetched in the background. */
export function quoteCallbackRoutes(): Router {
  const router = Router();
  router.post(CALLBACK_PATH, ...jsonBody(LIMITS.restBodyBytes), async (req, res) => {
    const { em, viewer, wakeDispatcher } = await authorisedContext(res, 'quoteCallback');
    const quoteRequestId = parseCallback(req.body);
    if (await receiveCallback(em, viewer, quoteRequestId)) wakeDispatcher(viewer.insurerId);
    res.status(202).json({ status: 'accepted', quote_request_id: quoteRequestId });
  });
  router.all(CALLBACK_PATH, methodNotAllowed('POST'));
  return router;
}
