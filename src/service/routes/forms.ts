/** Human-input form GET and POST (dify-wire.md §2.2–2.3). */
import { APP_OPERATIONS } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import { appFileResolver } from '../files/resolve.js';
import { checkSubmissionPayload, ensureFormActive, formDefinition, validateSubmission } from '../forms.js';
import { json } from '../http.js';
import type { Router } from '../router.js';
import { appRoute } from './app-route.js';

export function formRoutes(router: Router<ServiceContext>): void {
  const route = appRoute(router);
  route(APP_OPERATIONS.getForm, {}, ({ app, params, context: { engine } }) => {
    const form = engine.forms.forApp(params.form_token!, app.id);
    ensureFormActive(form);
    return json(formDefinition(form));
  });

  // Like the real service: `user` (read by its auth decorator), then the payload's shape, then the form.
  route(APP_OPERATIONS.submitForm, { user: 'required' }, async ({ app, params, body, context: { engine, uploads, qa } }) => {
    checkSubmissionPayload(body);
    const form = engine.forms.forApp(params.form_token!, app.id);
    const { action, values } = await validateSubmission(form, body, appFileResolver({ uploads, qa }, app.id));
    // Validation awaited (remote files); a concurrent submit may have won meanwhile: first one wins.
    ensureFormActive(form);
    engine.resume(form, action, values);
    return json({});
  });
}
