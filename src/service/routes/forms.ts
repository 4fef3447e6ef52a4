/** Human-input form GET and POST (dify-wire.md §2.2–2.3). */
import { authenticateApp } from '../auth.js';
import { checkSubmissionPayload, ensureFormActive, FileRejection, formDefinition, validateSubmission, type FileResolver } from '../forms.js';
import { json, readJsonObject, requireUser } from '../http.js';
import type { Router } from '../router.js';
import type { ServiceContext } from './app.js';

/** Until uploads exist, no local file id names a file this tenant owns. */
const resolveFile: FileResolver = async (reference) => {
  if (reference.transfer_method === 'local_file') throw new FileRejection('Invalid upload file');
  if (reference.transfer_method === 'remote_url') {
    const url = reference.url ?? reference.remote_url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new FileRejection('Invalid file url');
    return { transfer_method: 'remote_url', url };
  }
  throw new FileRejection('unsupported transfer method');
};

export function formRoutes(router: Router<ServiceContext>): void {
  router.on('GET', '/form/human_input/:token', (request, { token }, _u, { fixture, engine }) => {
    const app = authenticateApp(request, fixture);
    const form = engine.forms.forApp(token!, app.id);
    ensureFormActive(form);
    return new Response(JSON.stringify(formDefinition(form)), { headers: { 'Content-Type': 'application/json' } });
  });

  router.on('POST', '/form/human_input/:token', async (request, { token }, _u, { fixture, engine }) => {
    const app = authenticateApp(request, fixture);
    const body = await readJsonObject(request);
    // Like the real service: `user` (read by its auth decorator), then the payload's shape, then the form.
    requireUser(body.user);
    checkSubmissionPayload(body);
    const form = engine.forms.forApp(token!, app.id);
    const { action, values } = await validateSubmission(form, body, resolveFile);
    // Validation awaited; a concurrent submit may have won meanwhile: first one wins.
    ensureFormActive(form);
    engine.resume(form, action, values);
    return json({});
  });
}
