/** Human-input form GET and POST (dify-wire.md §2.2–2.3). */
import { authenticateApp } from '../auth.js';
import type { ServiceContext } from '../context.js';
import { appFileResolver } from '../files/resolve.js';
import { checkSubmissionPayload, ensureFormActive, formDefinition, validateSubmission } from '../forms.js';
import { json, readJsonObject, requireUser } from '../http.js';
import type { Router } from '../router.js';

export function formRoutes(router: Router<ServiceContext>): void {
  router.on('GET', '/form/human_input/:token', (request, { token }, _u, { fixture, engine }) => {
    const app = authenticateApp(request, fixture);
    const form = engine.forms.forApp(token!, app.id);
    ensureFormActive(form);
    return json(formDefinition(form));
  });

  router.on('POST', '/form/human_input/:token', async (request, { token }, _u, { fixture, engine, uploads, qa }) => {
    const app = authenticateApp(request, fixture);
    const body = await readJsonObject(request);
    // Like the real service: `user` (read by its auth decorator), then the payload's shape, then the form.
    requireUser(body.user);
    checkSubmissionPayload(body);
    const form = engine.forms.forApp(token!, app.id);
    const { action, values } = await validateSubmission(form, body, appFileResolver({ uploads, qa }, app.id));
    // Validation awaited (remote files); a concurrent submit may have won meanwhile: first one wins.
    ensureFormActive(form);
    engine.resume(form, action, values);
    return json({});
  });
}
